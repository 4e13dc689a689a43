// bench/RESULTS.md holds one section per benchmark (`pnpm bench`, `pnpm bench:http`), each between
// its own HTML-comment markers. A benchmark replaces its section only, so neither erases the other.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export const RESULTS_FILE = new URL('./RESULTS.md', import.meta.url);

const TITLE = `# Benchmark results

Two benchmarks write this file, each its own section between HTML-comment markers:
\`pnpm bench\` (the stores, in process) and \`pnpm bench:http\` (the HTTP adapters against the peers).
Each run replaces its own section only; the two were not necessarily measured on the same day.
`;

/** The section names: `pnpm bench` and `pnpm bench:http`. */
export const STORE_SECTION = 'bench:store';
export const HTTP_SECTION = 'bench:http';

const markers = (name) => [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`];

/** `text` with the section `name` replaced by `body`, or appended when the section is missing. */
export function replaceSection(text, name, body) {
  const [start, end] = markers(name);
  const section = `${start}\n${body.trim()}\n${end}`;
  const from = text.indexOf(start);
  const to = text.indexOf(end, from);
  if (from !== -1 && to !== -1) return text.slice(0, from) + section + text.slice(to + end.length);
  return `${text.trimEnd()}\n\n${section}\n`;
}

/** Writes `body` as the section `name` of `file` (RESULTS.md unless given), keeping everything else. */
export function writeSection(name, body, file = RESULTS_FILE) {
  let text = existsSync(file) ? readFileSync(file, 'utf8') : TITLE;
  if (!text.includes(':start -->')) text = replaceSection(TITLE, STORE_SECTION, legacyStoreSection(text));
  writeFileSync(file, replaceSection(text, name, body));
}

/** A RESULTS.md from before the sections is all `pnpm bench`'s: its headings one level down. */
function legacyStoreSection(text) {
  return text.replace(/^# .*$/m, '## Stores in process: `pnpm bench`').replace(/^## (?!Stores in process)/gm, '### ');
}
