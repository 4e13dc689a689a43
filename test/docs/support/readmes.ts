import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './packages.ts';

/** One fenced code block of a README. */
export interface CodeBlock {
  /** Path from the repository root, e.g. `packages/redis/README.md`. */
  readme: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string (`ts`, `sh`, or `''`). */
  lang: string;
  /** The block's text, dedented to its fence. */
  code: string;
  /** The nearest heading above it. */
  heading: string;
}

/** Languages whose blocks are compiled: TypeScript, and JavaScript (checked as such). */
export const CODE_LANGS = ['ts', 'js'];
/** Blocks that are not program text, and how each is read instead (or why it is not). */
export const OTHER_LANGS: Record<string, string> = {
  sh: 'shell commands',
  json: 'a JSON document: parsed',
  jsonc: 'a wrangler configuration: parsed as JSON with comments',
  http: 'an HTTP exchange: compared with a real response in responses.test.ts',
  promql: 'Prometheus queries',
  '': 'a formula or an illustration',
};

/** The READMEs a user reads: the root one, each package's and each example's. */
export function readmePaths(): string[] {
  const inside = (dir: string) =>
    readdirSync(join(ROOT, dir))
      .map((name) => `${dir}/${name}/README.md`)
      .filter((path) => existsSync(join(ROOT, path)));
  return ['README.md', ...inside('packages'), ...inside('examples')];
}

export function readReadme(readme: string): string {
  return readFileSync(join(ROOT, readme), 'utf8');
}

/** Every fenced block of a README, in order. */
export function codeBlocks(readme: string): CodeBlock[] {
  const lines = readReadme(readme).split('\n');
  const blocks: CodeBlock[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const headingMatch = /^#+\s+(.*)$/.exec(line);
    if (headingMatch) heading = headingMatch[1] as string;
    const fence = /^(\s*)(`{3,})\s*([\w-]*)/.exec(line);
    if (!fence) continue;
    const [, indent = '', ticks = '', lang = ''] = fence;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !(lines[j] as string).startsWith(`${indent}${ticks}`)) {
      body.push((lines[j] as string).slice(indent.length));
      j++;
    }
    blocks.push({ readme, line: i + 1, lang, code: `${body.join('\n')}\n`, heading });
    i = j;
  }
  return blocks;
}

/** Marks the lines inside fenced blocks, where a `#` starts a comment, not a heading. */
function headingLines(lines: readonly string[]): boolean[] {
  let fence: string | undefined;
  return lines.map((line) => {
    const ticks = /^\s*(`{3,})/.exec(line)?.[1];
    if (ticks !== undefined) {
      if (fence === undefined) fence = ticks;
      else if (ticks.startsWith(fence)) fence = undefined;
      return false;
    }
    return fence === undefined && /^#{1,6}\s/.test(line);
  });
}

/** The text under a heading, up to the next heading of the same or a higher level. */
export function section(readme: string, title: string): string {
  const lines = readReadme(readme).split('\n');
  const headings = headingLines(lines);
  const levelOf = (i: number) => (/^#+/.exec(lines[i] as string)?.[0] ?? '').length;
  const start = lines.findIndex((line, i) => headings[i] && line.replace(/^#+\s+/, '') === title);
  if (start === -1) throw new Error(`${readme} has no heading "${title}"`);
  const end = lines.findIndex((_, i) => i > start && headings[i] && levelOf(i) <= levelOf(start));
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n');
}

/** Every heading of a README, as written (without the #s). */
export function headings(readme: string): string[] {
  const lines = readReadme(readme).split('\n');
  const marks = headingLines(lines);
  return lines.filter((_, i) => marks[i]).map((line) => line.replace(/^#+\s+/, ''));
}

/** A short, stable name for a README: `root`, `packages-redis`, `examples-hono`. */
export function slugOf(readme: string): string {
  return readme === 'README.md' ? 'root' : readme.replace(/\/README\.md$/, '').replace(/\//g, '-');
}
