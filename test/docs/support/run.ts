import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { type CodeBlock, slugOf } from './readmes.ts';

/** One exchange of the harness with a snippet's server. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What the harness saw of a snippet that started a server. */
export interface Probe {
  statuses: number[];
  denied?: { headers: Record<string, string>; body: string };
  /** The answers to PROBE_STEPS, when it was given. */
  steps?: Answer[];
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Present when the snippet listened. */
  probe?: Probe;
}

const HARNESS = fileURLToPath(new URL('./listen-harness.mjs', import.meta.url));

/** Transpiles a block (types erased) into the user app and runs it with Node, under the listen harness. */
export function runSnippet(dir: string, block: CodeBlock, env: Record<string, string>): Promise<RunResult> {
  const folder = join(dir, 'snippets', 'run');
  mkdirSync(folder, { recursive: true });
  copyFileSync(HARNESS, join(folder, 'listen-harness.mjs'));
  const file = join(folder, `${slugOf(block.readme)}-L${block.line}.mjs`);
  const js = ts.transpileModule(block.code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  writeFileSync(file, js);
  // The snippet has run once its module (top-level awaits included) has settled; a server it started
  // is the harness' to probe. Errors thrown a moment later (a rejected promise) still count.
  const entry = `${file.slice(0, -4)}.entry.mjs`;
  writeFileSync(
    entry,
    `await import(${JSON.stringify(file)});\nsetTimeout(() => globalThis.floodgateHarnessProbing || process.exit(0), 300);\n`,
  );
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', './listen-harness.mjs', entry],
      { cwd: folder, env: { ...process.env, ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        const line = stdout.split('\n').find((text) => text.startsWith('@@probe '));
        const probe = line === undefined ? undefined : (JSON.parse(line.slice('@@probe '.length)) as Probe);
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr, ...(probe === undefined ? {} : { probe }) });
      },
    );
  });
}
