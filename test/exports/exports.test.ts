import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built packages (dist/, produced by `turbo run build` before this suite), loaded the way users
// load them: `import` from ESM and `require` from CommonJS, in a plain Node process.
const here = fileURLToPath(new URL('.', import.meta.url));

const expected: Record<string, string[]> = {
  '@floodgate/core': [
    'createLimiter',
    'MemoryStore',
    'fixedWindow',
    'slidingLog',
    'slidingWindow',
    'tokenBucket',
    'leakyBucket',
    'gcra',
    'concurrency',
    'byIp',
    'byHeader',
    'byApiKey',
    'byUser',
    'layered',
    'buildHeaders',
    'parseDuration',
    'FloodgateError',
  ],
  '@floodgate/redis': ['RedisStore'],
  '@floodgate/express': ['rateLimit', 'slidingWindow', 'byIp', 'layered'],
  '@floodgate/fastify': ['floodgate', 'default'],
  '@floodgate/hono': ['rateLimiter'],
};

function exportedNames(pkg: string, mode: 'esm' | 'cjs'): string[] {
  const script =
    mode === 'esm'
      ? `import(${JSON.stringify(pkg)}).then((m) => console.log(JSON.stringify(Object.keys(m))))`
      : `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(pkg)}))))`;
  const args = mode === 'esm' ? ['--input-type=module', '-e', script] : ['-e', script];
  return JSON.parse(execFileSync(process.execPath, args, { cwd: here, encoding: 'utf8' }));
}

describe.each(Object.entries(expected))('%s built package', (pkg, names) => {
  const dist = fileURLToPath(new URL(`../../packages/${pkg.split('/')[1]}/dist/index.js`, import.meta.url));

  it('was built before this suite ran', () => {
    expect(existsSync(dist)).toBe(true);
  });

  it.each(['esm', 'cjs'] as const)('loads with %s and exposes the public names', (mode) => {
    expect(exportedNames(pkg, mode)).toEqual(expect.arrayContaining(names));
  });
});
