import { beforeAll, describe, expect, it } from 'vitest';
import { contextFile, typeCheck } from './support/compile.ts';
import { CODE_LANGS, type CodeBlock, codeBlocks, OTHER_LANGS, readmePaths, slugOf } from './support/readmes.ts';
import { type UserApp, userApp } from './support/user-app.ts';

// Every TypeScript and JavaScript block of every README, type-checked under `strict` against the
// packed packages installed in a fresh app, so a snippet cannot drift from the API. A fragment
// (a route that uses an `app` made earlier) takes those names from test/docs/context/<readme>.d.ts.

let app: UserApp;
beforeAll(() => {
  app = userApp();
}, 300_000);

describe.each(readmePaths())('%s', (readme) => {
  const blocks = codeBlocks(readme);
  const code = blocks.filter((block) => CODE_LANGS.includes(block.lang));
  let errors: Map<CodeBlock, string[]>;
  beforeAll(() => {
    errors =
      code.length === 0
        ? new Map()
        : typeCheck(app.dir, code, { folder: slugOf(readme), context: contextFile(readme) });
  }, 120_000);

  it('marks every block with a language the suite knows', () => {
    const unknown = blocks.filter((block) => !CODE_LANGS.includes(block.lang) && !(block.lang in OTHER_LANGS));
    expect(unknown.map((block) => `${readme}:${block.line} \`\`\`${block.lang}`)).toEqual([]);
  });

  it.skipIf(code.length === 0).each(code.map((block) => [`${block.lang} block at line ${block.line}`, block] as const))(
    '%s compiles',
    (_, block) => {
      expect(errors.get(block)).toEqual([]);
    },
  );

  const data = blocks.filter((block) => block.lang === 'json' || block.lang === 'jsonc');
  it.skipIf(data.length === 0).each(data.map((block) => [`${block.lang} block at line ${block.line}`, block] as const))(
    '%s parses',
    (_, block) => {
      const json = block.code.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_, string) => string ?? '');
      expect(() => JSON.parse(json.replace(/,(\s*[}\]])/g, '$1'))).not.toThrow();
    },
  );
});
