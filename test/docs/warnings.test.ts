import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/packages.ts';
import { headings, readmePaths, readReadme, section } from './support/readmes.ts';

// Every warning code the packages can emit has a README heading of its own (a link target such as
// packages/core/README.md#warn_floodgate_undefined_ip) that says what causes it and how to fix it.

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The codes written as string literals in the packages' sources. */
const codes = [
  ...new Set(
    readdirSync(join(ROOT, 'packages')).flatMap((pkg) =>
      sourceFiles(join(ROOT, 'packages', pkg, 'src')).flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/['"`](WARN_FLOODGATE_[A-Z_]+)['"`]/g)].map(
          ([, code]) => code as string,
        ),
      ),
    ),
  ),
].sort();

/** README and heading of each documented code. */
const documented = new Map(
  readmePaths().flatMap((readme) =>
    headings(readme)
      .filter((heading) => /^WARN_FLOODGATE_[A-Z_]+$/.test(heading))
      .map((heading) => [heading, readme] as const),
  ),
);

describe('warning codes', () => {
  it('are found in the sources (core, the HTTP kit and RedisStore at least)', () => {
    expect(codes.length).toBeGreaterThanOrEqual(17);
    expect(codes).toEqual(expect.arrayContaining(['WARN_FLOODGATE_UNDEFINED_IP', 'WARN_FLOODGATE_OFFLINE_QUEUE']));
  });

  it.each(codes)('%s has a heading that says its cause and its fix', (code) => {
    const readme = documented.get(code);
    expect(readme, `no README heading "${code}"`).toBeDefined();
    const text = section(readme as string, code).trim();
    expect(text.length).toBeGreaterThan(80);
    expect(text).toMatch(/\bFix\b/);
  });

  it('documented and mentioned in the READMEs are only codes the sources emit', () => {
    const mentioned = readmePaths().flatMap((readme) =>
      [...readReadme(readme).matchAll(/WARN_FLOODGATE_[A-Z_]+/g)].map(([code]) => code),
    );
    expect([...new Set([...documented.keys(), ...mentioned])].filter((code) => !codes.includes(code))).toEqual([]);
  });
});
