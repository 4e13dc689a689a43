import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A workspace package users install from npm. */
export interface PublishedPackage {
  /** Folder under packages/. */
  dir: string;
  /** `@floodgate/<dir>`. */
  name: string;
  version: string;
  manifest: Record<string, unknown>;
}

/** Every package under packages/ that is not private: what the changesets flow publishes. */
export function publishedPackages(): PublishedPackage[] {
  return readdirSync(join(ROOT, 'packages'))
    .filter((dir) => existsSync(join(ROOT, 'packages', dir, 'package.json')))
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8'));
      return { dir, name: manifest.name as string, version: manifest.version as string, manifest };
    })
    .filter((pkg) => pkg.manifest.private !== true);
}

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newestMtime(join(path, entry))));
}

/**
 * Builds a package whose dist/ is missing or older than its src/. `pnpm test` builds only what the
 * test workspace depends on, and a user installs every package, so the docs suite makes sure of the rest.
 */
export function ensureBuilt(pkg: PublishedPackage): void {
  const dir = join(ROOT, 'packages', pkg.dir);
  const entry = join(dir, 'dist', 'index.js');
  const sources = readdirSync(join(dir, 'src')).filter((name) => name !== 'generated');
  const newestSource = Math.max(...sources.map((name) => newestMtime(join(dir, 'src', name))));
  if (existsSync(entry) && statSync(entry).mtimeMs >= newestSource) return;
  execFileSync('pnpm', ['run', 'build'], { cwd: dir, stdio: 'pipe' });
}

/** `pnpm pack` (which turns `workspace:^` into the version range, as `pnpm publish` does) into `into`. */
export function pack(pkg: PublishedPackage, into: string): string {
  mkdirSync(into, { recursive: true });
  const out = join(into, `${pkg.dir}.tgz`);
  execFileSync('pnpm', ['pack', '--out', out], { cwd: join(ROOT, 'packages', pkg.dir), stdio: 'pipe' });
  return out;
}

/** Names of the files in a tarball, without the leading `package/`. */
export function tarballFiles(tarball: string): string[] {
  return execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((line) => line.replace(/^package\//, ''));
}

/** The package.json inside a tarball, as the registry would serve it. */
export function packedManifest(tarball: string): Record<string, Record<string, string> | string> {
  return JSON.parse(execFileSync('tar', ['xzf', tarball, '-O', 'package/package.json'], { encoding: 'utf8' }));
}
