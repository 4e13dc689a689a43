import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { publishedPackages, ROOT } from './support/packages.ts';

// The changesets flow publishes exactly the packages under packages/, together, in public.

const config = JSON.parse(readFileSync(join(ROOT, '.changeset', 'config.json'), 'utf8'));
const published = publishedPackages();

it('versions every published package together, and publishes them in public', () => {
  expect(config.access).toBe('public');
  expect(config.fixed).toEqual([['@floodgate/*']]);
  expect(published.map((pkg) => pkg.name).every((name) => name.startsWith('@floodgate/'))).toBe(true);
  expect(new Set(published.map((pkg) => pkg.version)).size).toBe(1);
});

it('keeps the examples, the suites and the benchmarks private, so they are never published', () => {
  const others = ['examples', 'test', 'bench'].flatMap((dir) =>
    dir === 'examples' ? readdirSync(join(ROOT, dir)).map((name) => join(dir, name)) : [dir],
  );
  for (const dir of others) {
    const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
    expect([dir, manifest.private]).toEqual([dir, true]);
  }
});

it('has a release script that builds, then publishes with changesets', () => {
  const { scripts, devDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  expect(scripts.release).toMatch(/build.*&& changeset publish$/);
  expect(devDependencies['@changesets/cli']).toMatch(/^\^2\./);
});

it('packs no package unbuilt: each runs scripts/prepack.mjs before pnpm pack and pnpm publish', () => {
  for (const pkg of published) {
    const scripts = pkg.manifest.scripts as Record<string, string>;
    expect([pkg.name, scripts.prepack]).toEqual([pkg.name, 'node ../../scripts/prepack.mjs']);
  }
});
