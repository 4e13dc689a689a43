import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { type CodeBlock, slugOf } from './readmes.ts';

/** What a strict TypeScript app checks a snippet with: `tsc --strict`, ES modules resolved as Node does. */
export const USER_COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
  allowJs: true,
  checkJs: true,
  skipLibCheck: true,
};

/** A Nest app's: the same, with the legacy decorators and their metadata (`nest new`'s tsconfig). */
export const NEST_COMPILER_OPTIONS: ts.CompilerOptions = {
  ...USER_COMPILER_OPTIONS,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
};

/**
 * In a `js` block, the errors a JavaScript user would also hit: syntax, a module or export or name
 * that does not exist, an option that is not one. Type mismatches are TypeScript's concern: a `js`
 * snippet is not written for a type checker.
 */
const JS_DRIFT = new Set([2304, 2305, 2307, 2339, 2353, 2551, 2552, 2561, 2614, 2724]);

/** The names a README's fragments take from their surroundings, declared in test/docs/context/<slug>.d.ts. */
export function contextFile(readme: string): string | undefined {
  const path = fileURLToPath(new URL(`../context/${slugOf(readme)}.d.ts`, import.meta.url));
  return existsSync(path) ? path : undefined;
}

/** The file a block is written to; a block without import or export is made a module. */
function snippetFile(folder: string, block: CodeBlock): string {
  return join(folder, `${slugOf(block.readme)}-L${block.line}.${block.lang === 'js' ? 'js' : 'ts'}`);
}

function asModule(code: string): string {
  return /^\s*(import|export)\s/m.test(code) ? code : `${code}\nexport {};\n`;
}

const parsed = new Map<string, ts.SourceFile>();

/**
 * Type-checks blocks inside the user app (so `@floodgate/*` are the packed packages), in
 * `snippets/<folder>`, with `context` (a .d.ts of global declarations) when given. Returns each
 * block's errors, with README line numbers.
 */
export function typeCheck(
  dir: string,
  blocks: readonly CodeBlock[],
  { folder: name, context }: { folder: string; context?: string | undefined },
): Map<CodeBlock, string[]> {
  const folder = join(dir, 'snippets', name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const files = new Map<string, CodeBlock>();
  for (const block of blocks) {
    const file = snippetFile(folder, block);
    writeFileSync(file, asModule(block.code));
    files.set(file, block);
  }
  const roots = [...files.keys()];
  if (context !== undefined) {
    copyFileSync(context, join(folder, 'context.d.ts'));
    roots.push(join(folder, 'context.d.ts'));
    // Module augmentations (a README's app decorating its requests) live in a module of their own.
    const augmentations = context.replace(/\.d\.ts$/, '.module.d.ts');
    if (existsSync(augmentations)) {
      copyFileSync(augmentations, join(folder, 'augmentations.d.ts'));
      roots.push(join(folder, 'augmentations.d.ts'));
    }
  }
  // A Nest app compiles with TypeScript's legacy decorators, as `nest new` sets it up.
  const options = /nestjs/.test(name) ? NEST_COMPILER_OPTIONS : USER_COMPILER_OPTIONS;
  const host = ts.createCompilerHost(options);
  host.getCurrentDirectory = () => dir;
  // Declarations of installed packages are the same for every README: parse them once per process.
  const read = host.getSourceFile;
  host.getSourceFile = (fileName, language, ...rest) => {
    if (!fileName.includes('/node_modules/')) return read(fileName, language, ...rest);
    const cached = parsed.get(fileName);
    if (cached !== undefined) return cached;
    const file = read(fileName, language, ...rest);
    if (file !== undefined) parsed.set(fileName, file);
    return file;
  };
  const program = ts.createProgram(roots, options, host);
  const errors = new Map<CodeBlock, string[]>(blocks.map((block) => [block, []]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const block = diagnostic.file === undefined ? undefined : files.get(diagnostic.file.fileName);
    if (diagnostic.file === undefined || block === undefined) {
      // A global problem, or one in the context file: every block of the README is suspect.
      const where = diagnostic.file === undefined ? '' : `${diagnostic.file.fileName}: `;
      for (const list of errors.values()) list.push(`${where}${message}`);
      continue;
    }
    if (block.lang === 'js' && diagnostic.code >= 2000 && !JS_DRIFT.has(diagnostic.code)) continue;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    errors.get(block)?.push(`${block.readme}:${block.line + 1 + line}: TS${diagnostic.code} ${message}`);
  }
  return errors;
}
