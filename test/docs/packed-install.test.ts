import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { publishedPackages } from './support/packages.ts';
import { packedManifest, tarballFiles, tarballProblems } from './support/tarball-checks.ts';
import { type UserApp, userApp } from './support/user-app.ts';

// Each published package as npm would serve it: packed, then installed from the tarballs (and the
// registry, preferring the pnpm store) in a fresh directory outside the monorepo, where nothing is hoisted.

let app: UserApp;
beforeAll(() => {
  app = userApp();
}, 300_000);

/** Every `exports` subpath of a manifest, as importable specifiers. */
function entries(name: string, manifest: Record<string, unknown>): string[] {
  const exports = manifest.exports as Record<string, unknown>;
  return Object.keys(exports)
    .filter((key) => key !== './package.json')
    .map((key) => (key === '.' ? name : `${name}/${key.slice(2)}`));
}

describe('packed packages', () => {
  it('are all installed from their tarballs, with one copy of @floodgate/core', () => {
    const store = readdirSync(join(app.dir, 'node_modules', '.pnpm'));
    for (const pkg of app.packages) {
      expect(readdirSync(join(app.dir, 'node_modules', '@floodgate'))).toContain(pkg.dir);
    }
    expect(store.filter((entry) => entry.startsWith('@floodgate+core@'))).toHaveLength(1);
  });

  it('load with import and with require in a plain Node process, every entry', () => {
    const specifiers = app.packages.flatMap((pkg) => entries(pkg.name, pkg.manifest));
    const esm = `const names = {}; for (const s of ${JSON.stringify(specifiers)}) names[s] = Object.keys(await import(s)).length; console.log(JSON.stringify(names));`;
    const cjs = `const names = {}; for (const s of ${JSON.stringify(specifiers)}) names[s] = Object.keys(require(s)).length; console.log(JSON.stringify(names));`;
    const run = (args: string[]) =>
      JSON.parse(execFileSync(process.execPath, args, { cwd: app.dir, encoding: 'utf8' })) as Record<string, number>;
    for (const counts of [run(['--input-type=module', '-e', esm]), run(['--input-type=commonjs', '-e', cjs])]) {
      expect(Object.keys(counts).sort()).toEqual([...specifiers].sort());
      for (const count of Object.values(counts)) expect(count).toBeGreaterThan(0);
    }
  });
});

describe.each(publishedPackages().map((pkg) => pkg.name))('%s tarball', (name) => {
  const pkg = () => app.packages.find((candidate) => candidate.name === name) as UserApp['packages'][number];
  const tarball = () => app.tarballs[name] as string;

  it('has its built entries, no workspace: range, and declares every package its built code imports', () => {
    expect(tarballProblems(tarball())).toEqual([]);
  });

  it('ships the built JavaScript and types, the README and the licence; no sources, source maps or tests', () => {
    const files = tarballFiles(tarball());
    expect(files).toEqual(expect.arrayContaining(['dist/index.d.cts']));
    expect(
      files.filter((file) => !file.startsWith('dist/') && !/^(package\.json|README\.md|LICENSE)$/.test(file)),
    ).toEqual([]);
    expect(files.filter((file) => file.endsWith('.map') || /\.test\./.test(file))).toEqual([]);
  });

  it('has a publishable manifest: its version and public access', () => {
    const manifest = packedManifest(tarball());
    expect(manifest.version).toBe(pkg().version);
    expect(manifest.publishConfig).toEqual({ access: 'public' });
  });
});
