import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

const source = (pkg: string, file = 'index') =>
  fileURLToPath(new URL(`./packages/${pkg}/src/${file}.ts`, import.meta.url));

/**
 * Inside the workspace every @floodgate/* import resolves to the package's TypeScript source,
 * so tests never run against a stale build. The built dist/ is exercised by test/exports.
 * Exact matches: '@floodgate/core' must not also catch '@floodgate/core/http'.
 */
export const workspaceAliases = [
  { find: /^@floodgate\/core$/, replacement: source('core') },
  { find: /^@floodgate\/core\/store$/, replacement: source('core', 'store-kit') },
  { find: /^@floodgate\/core\/http$/, replacement: source('core', 'http-kit') },
  { find: /^@floodgate\/redis$/, replacement: source('redis') },
  { find: /^@floodgate\/regions$/, replacement: source('regions') },
  { find: /^@floodgate\/express$/, replacement: source('express') },
  { find: /^@floodgate\/fastify$/, replacement: source('fastify') },
  { find: /^@floodgate\/hono$/, replacement: source('hono') },
  { find: /^@floodgate\/koa$/, replacement: source('koa') },
  { find: /^@floodgate\/nestjs$/, replacement: source('nestjs') },
];

export function floodgateTestConfig(overrides: ViteUserConfig['test'] = {}) {
  return defineConfig({
    resolve: { alias: workspaceAliases },
    test: {
      // A test that sends hundreds of requests takes longer than vitest's 5 s on a machine shared by
      // other runs (load average 18: a payments-gateway suite timed out); no test asserts its own duration.
      testTimeout: 30_000,
      hookTimeout: 30_000,
      reporters: ['default', 'json'],
      outputFile: { json: '.reports/vitest.json' },
      ...overrides,
    },
  });
}
