// A package's `prepack`: `pnpm pack` and `pnpm publish` run it in the package's folder. It builds
// when dist/ is missing or older than what it is built from, then refuses (exit 1) to pack a
// package whose manifest points at a file the build did not make, so no tarball ships without dist/.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const dir = process.cwd();
const root = resolve(dir, '../..');
const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/** Every file the manifest's `main`, `module`, `types` and `exports` point at. */
function targets(value) {
  if (typeof value === 'string') return value.startsWith('./dist/') ? [value.slice(2)] : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(targets);
}

/** Newest modification time under `path` (0 when absent), skipping generated sources. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  const entries = readdirSync(path).filter((name) => name !== 'generated' && name !== 'node_modules');
  return Math.max(0, ...entries.map((name) => newest(join(path, name))));
}

const built = [...new Set(targets([manifest.main, manifest.module, manifest.types, manifest.exports]))];
const inputs = ['src', 'scripts', 'package.json', 'tsconfig.json', 'tsup.config.ts'].map((name) => join(dir, name));
inputs.push(join(root, 'tsup.shared.ts'), join(root, 'tsconfig.base.json'));
if (/embed-lua/.test(manifest.scripts?.build ?? '')) inputs.push(join(root, 'lua'));

const oldestOutput = Math.min(
  ...built.map((file) => (existsSync(join(dir, file)) ? statSync(join(dir, file)).mtimeMs : 0)),
);
if (oldestOutput < Math.max(...inputs.map(newest))) {
  console.error(`${manifest.name}: dist/ is missing or older than its sources; building before packing`);
  execFileSync('pnpm', ['run', 'build'], { cwd: dir, stdio: 'inherit' });
}

const missing = built.filter((file) => !existsSync(join(dir, file)));
if (built.length === 0 || missing.length > 0) {
  console.error(
    `${manifest.name}: refusing to pack: the build did not make ${missing.join(', ') || 'any dist/ entry'}`,
  );
  process.exit(1);
}
