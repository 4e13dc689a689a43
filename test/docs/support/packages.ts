import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
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

/**
 * `pnpm pack` into `into`, as `pnpm publish` packs: its `prepack` builds a package whose dist/ is
 * missing or stale, and `workspace:^` becomes the version range.
 */
export function pack(pkg: PublishedPackage, into: string): string {
  mkdirSync(into, { recursive: true });
  const out = join(into, `${pkg.dir}.tgz`);
  execFileSync('pnpm', ['pack', '--out', out], { cwd: join(ROOT, 'packages', pkg.dir), stdio: 'pipe' });
  return out;
}
