import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

const source = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

/**
 * Inside the workspace every @floodgate/* import resolves to the package's TypeScript source,
 * so tests never run against a stale build. The built dist/ is exercised by test/exports.
 */
export const workspaceAliases = {
  '@floodgate/core': source('core'),
  '@floodgate/redis': source('redis'),
  '@floodgate/express': source('express'),
  '@floodgate/fastify': source('fastify'),
  '@floodgate/hono': source('hono'),
};

export function floodgateTestConfig(overrides: ViteUserConfig['test'] = {}) {
  return defineConfig({
    resolve: { alias: workspaceAliases },
    test: {
      reporters: ['default', 'json'],
      outputFile: { json: '.reports/vitest.json' },
      ...overrides,
    },
  });
}
