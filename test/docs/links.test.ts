import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/packages.ts';
import { headings, readmePaths, readReadme, section } from './support/readmes.ts';

// Links in the READMEs and ARCHITECTURE.md lead somewhere: every relative link names a file or
// folder of the repository, and every #anchor a heading of its target. The root README's "Where it runs" table
// links each runtime × store × client cell to the tests that cover it.

/** GitHub's anchor for a heading. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** Relative link targets of a README's prose (code blocks left out). */
function links(readme: string): string[] {
  const prose = readReadme(readme).replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => target as string)
    .filter((target) => !/^[a-z]+:/.test(target));
}

/** Why a link leads nowhere, or undefined when it leads somewhere. */
function broken(readme: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#');
  const file = path === '' ? join(ROOT, readme) : join(ROOT, dirname(readme), path);
  if (!existsSync(file)) return `${target}: ${relative(ROOT, file)} does not exist`;
  if (anchor === undefined) return undefined;
  const markdown = relative(ROOT, statSync(file).isDirectory() ? join(file, 'README.md') : file);
  return headings(markdown).map(slug).includes(anchor) ? undefined : `${target}: ${markdown} has no heading #${anchor}`;
}

it.each([...readmePaths(), 'ARCHITECTURE.md'])(
  'every relative link of %s leads to a file and heading that exist',
  (readme) => {
    expect(links(readme).flatMap((target) => broken(readme, target) ?? [])).toEqual([]);
  },
);

describe('the table of runtimes, stores and clients', () => {
  const rows = section('README.md', 'Where it runs')
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const [header = [], , ...body] = rows;

  it('has a row per runtime and framework, and a column per store and client', () => {
    expect(header.join(' ')).toMatch(
      /MemoryStore.*RedisStore, ioredis.*iovalkey.*node-redis.*Valkey GLIDE.*Cluster.*DurableObjectStore/,
    );
    expect(body.map((cells) => `${cells[0]} ${cells[1]}`)).toEqual([
      expect.stringMatching(/Node.*Express/),
      expect.stringMatching(/Node.*Fastify/),
      expect.stringMatching(/Node.*Hono/),
      expect.stringMatching(/workerd.*Hono/),
    ]);
  });

  it('links every covered cell to test files that exist', () => {
    for (const cells of body) {
      for (const cell of cells.slice(2)) {
        if (cell.startsWith('—')) continue;
        const targets = [...cell.matchAll(/\]\(([^)]+)\)/g)].map(([, target]) => target as string);
        expect(targets.length, `cell "${cell}"`).toBeGreaterThan(0);
        for (const target of targets) {
          expect(target).toMatch(/^test\/.+\.test\.ts$/);
          expect(existsSync(join(ROOT, target)), target).toBe(true);
        }
      }
    }
  });
});
