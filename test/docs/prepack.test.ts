import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pack, publishedPackages, ROOT } from './support/packages.ts';
import { tarballFiles, tarballProblems } from './support/tarball-checks.ts';

// The checks the packed-install suite runs on every tarball, shown to catch each defect they exist
// for, and the `prepack` every package runs, shown to build an unbuilt package or refuse to pack it.

const scratch = mkdtempSync(join(tmpdir(), 'floodgate-prepack-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const client = publishedPackages().find((pkg) => pkg.name === '@floodgate/client');
if (client === undefined) throw new Error('@floodgate/client is not among the published packages');

/** The client's tarball, unpacked, changed by `edit`, and packed again. */
function repacked(tarball: string, label: string, edit: (dir: string) => void): string {
  const dir = join(scratch, label);
  mkdirSync(dir);
  execFileSync('tar', ['xzf', tarball, '-C', dir]);
  edit(join(dir, 'package'));
  const out = join(scratch, `${label}.tgz`);
  execFileSync('tar', ['czf', out, '-C', dir, 'package']);
  return out;
}

function editManifest(dir: string, edit: (manifest: Record<string, Record<string, string>>) => void): void {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  edit(manifest);
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
}

describe('the tarball checks', () => {
  let tarball: string;
  beforeAll(() => {
    tarball = pack(client, join(scratch, 'packed'));
  }, 120_000);

  it('find nothing wrong with the packed client', () => {
    expect(tarballProblems(tarball)).toEqual([]);
  });

  it('report a tarball without dist/', () => {
    const broken = repacked(tarball, 'no-dist', (dir) => rmSync(join(dir, 'dist'), { recursive: true }));
    expect(tarballProblems(broken)).toEqual(expect.arrayContaining(['missing dist/index.js']));
  });

  it('report a workspace: range left in the manifest', () => {
    const broken = repacked(tarball, 'workspace-range', (dir) =>
      editManifest(dir, (manifest) => {
        manifest.dependencies = { '@floodgate/core': 'workspace:^' };
      }),
    );
    expect(tarballProblems(broken)).toContain('dependencies.@floodgate/core is workspace:^');
  });

  it('report a package the built code imports without declaring it', () => {
    const broken = repacked(tarball, 'undeclared', (dir) => {
      const entry = join(dir, 'dist', 'index.js');
      writeFileSync(entry, `import { LRUCache } from 'lru-cache';\n${readFileSync(entry, 'utf8')}`);
    });
    expect(tarballProblems(broken)).toEqual(['imports lru-cache without declaring it']);
  });
});

/**
 * A copy of the client package in a scratch tree shaped like the monorepo (the shared tsup and
 * TypeScript configs and scripts/prepack.mjs two levels up), with no dist/, linked to the
 * workspace's installed tools, so `pnpm pack` runs the real prepack without touching the real dist/.
 */
function unbuiltClient(label: string): string {
  const root = join(scratch, label);
  const dir = join(root, 'packages', 'client');
  mkdirSync(dir, { recursive: true });
  for (const file of ['tsconfig.base.json', 'tsup.shared.ts', 'LICENSE', 'scripts/prepack.mjs'])
    cpSync(join(ROOT, file), join(root, file));
  for (const file of ['package.json', 'README.md', 'tsconfig.json', 'tsup.config.ts', 'src'])
    cpSync(join(ROOT, 'packages', 'client', file), join(dir, file), { recursive: true });
  cpSync(join(ROOT, 'LICENSE'), join(dir, 'LICENSE'));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  symlinkSync(join(ROOT, 'packages', 'client', 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

describe('pnpm pack of a package that was never built', () => {
  it('builds it first: the tarball holds dist/', () => {
    const dir = unbuiltClient('unbuilt');
    const out = join(scratch, 'unbuilt.tgz');
    execFileSync('pnpm', ['pack', '--out', out], { cwd: dir, stdio: 'pipe' });
    expect(tarballFiles(out)).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.cjs', 'dist/index.d.ts']));
  }, 120_000);

  it('refuses, and writes no tarball, when the build does not make what the manifest points at', () => {
    const dir = unbuiltClient('no-build');
    editManifest(dir, (manifest) => {
      manifest.scripts = { ...manifest.scripts, build: 'node -e ""' };
    });
    const out = join(scratch, 'no-build.tgz');
    let stderr = '';
    try {
      execFileSync('pnpm', ['pack', '--out', out], { cwd: dir, stdio: 'pipe', encoding: 'utf8' });
    } catch (error) {
      stderr =
        String((error as { stderr?: string; stdout?: string }).stderr ?? '') +
        String((error as { stdout?: string }).stdout ?? '');
    }
    expect(stderr).toMatch(/refusing to pack: the build did not make dist\/index\.cjs/);
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});
