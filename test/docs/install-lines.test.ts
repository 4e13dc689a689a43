import { describe, expect, it } from 'vitest';
import { publishedPackages } from './support/packages.ts';
import { codeBlocks, readmePaths, readReadme } from './support/readmes.ts';
import { THIRD_PARTY } from './support/user-app.ts';

// The install lines are complete: `npm install @floodgate/x` names what x needs besides itself
// (its required peer dependencies, or one of the optional ones it cannot work without), and every
// package a line names is one the docs suite installs in its fresh app.

const packages = publishedPackages();

/** The packages named by every `npm install` in a README, code blocks and inline code alike. */
function installLines(readme: string): string[][] {
  const text = readReadme(readme);
  const lines = [
    ...codeBlocks(readme).flatMap((block) => (block.lang === 'sh' ? block.code.split('\n') : [])),
    ...[...text.matchAll(/`(npm install [^`]+)`/g)].map(([, line]) => line as string),
  ];
  return lines
    .filter((line) => /^\s*(add )?`?npm install /.test(line) || line.startsWith('npm install '))
    .map((line) =>
      line
        .replace(/#.*$/, '')
        .replace(/^.*npm install /, '')
        .trim()
        .split(/\s+/),
    );
}

/** What a package's install line must name besides the package: its required peers, or one optional peer. */
function needs(pkg: (typeof packages)[number]): { all: string[]; oneOf: string[] } {
  const peers = Object.keys((pkg.manifest.peerDependencies as Record<string, string> | undefined) ?? {});
  const meta = (pkg.manifest.peerDependenciesMeta as Record<string, { optional?: boolean }> | undefined) ?? {};
  const optional = peers.filter((peer) => meta[peer]?.optional === true);
  return { all: peers.filter((peer) => !optional.includes(peer)), oneOf: optional };
}

describe.each(packages)('$name', (pkg) => {
  it("README's first install line names it with what it needs", () => {
    const [line] = installLines(`packages/${pkg.dir}/README.md`);
    expect(line).toBeDefined();
    expect(line).toContain(pkg.name);
    const { all, oneOf } = needs(pkg);
    expect(line).toEqual(expect.arrayContaining(all));
    if (oneOf.length > 0) expect(oneOf.some((peer) => line?.includes(peer))).toBe(true);
  });

  it("README's first snippet imports only what its first install block installs", () => {
    const readme = `packages/${pkg.dir}/README.md`;
    const blocks = codeBlocks(readme);
    const install = blocks.find((block) => block.lang === 'sh' && block.code.includes('npm install '));
    const line = (install?.code ?? '').replace(/#.*$/gm, '').split(/\s+/);
    const first = blocks.find((block) => block.lang === 'ts' || block.lang === 'js');
    const imported = [...(first?.code ?? '').matchAll(/from '([^']+)'/g)].map(([, spec = '']) =>
      spec
        .split('/')
        .slice(0, spec.startsWith('@') ? 2 : 1)
        .join('/'),
    );
    expect(imported.filter((name) => !name.startsWith('node:') && !line.includes(name))).toEqual([]);
  });

  it('is installed with what it needs wherever a README installs it', () => {
    const { all } = needs(pkg);
    for (const readme of readmePaths()) {
      for (const line of installLines(readme).filter((names) => names.includes(pkg.name))) {
        expect([readme, line]).toEqual([readme, expect.arrayContaining(all)]);
      }
    }
  });
});

// A required peer of a published package is installed with it in the docs suite's app (pnpm
// installs required peers), as it is in a user's.
it('every package an install line names is published here, installed by the docs suite, or a peer installed with one', () => {
  const known = new Set([
    ...packages.map((pkg) => pkg.name),
    ...THIRD_PARTY,
    ...packages.flatMap((pkg) => needs(pkg).all),
  ]);
  const named = readmePaths().flatMap((readme) => installLines(readme).flat());
  expect([...new Set(named)].filter((name) => !known.has(name))).toEqual([]);
});
