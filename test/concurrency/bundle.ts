import { mkdirSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The one esbuild call used here (esbuild ships its own types, but is not a dependency of this package). */
interface EsbuildApi {
  build(options: Record<string, unknown>): Promise<unknown>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Bundles RedisStore and the core algorithms from their TypeScript source into one ESM file that a
 * plain `node` child process can import (Node 20 cannot run .ts). esbuild comes with tsup, a root
 * dev dependency. The Redis clients stay external and resolve from test/node_modules; connectFamily
 * (test/redis/fixtures/families.ts) comes along, for workers of other client families.
 */
export async function bundleFromSource(): Promise<string> {
  const tsup = realpathSync(join(root, 'node_modules', 'tsup'));
  const esbuild = createRequire(join(tsup, 'package.json'))('esbuild') as EsbuildApi;
  const outDir = join(root, 'test', '.redis-test');
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, `floodgate-bundle-${process.pid}.mjs`);
  await esbuild.build({
    stdin: {
      contents:
        "export { RedisStore } from '@floodgate/redis';\nexport * from '@floodgate/core';\n" +
        "export { connectFamily } from './test/redis/fixtures/families.ts';\n",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    external: ['ioredis', 'iovalkey', 'redis', '@valkey/valkey-glide'],
    alias: {
      '@floodgate/core/store': join(root, 'packages/core/src/store-kit.ts'),
      '@floodgate/core/http': join(root, 'packages/core/src/http-kit.ts'),
      '@floodgate/core': join(root, 'packages/core/src/index.ts'),
      '@floodgate/redis': join(root, 'packages/redis/src/index.ts'),
    },
    logLevel: 'error',
  });
  return outfile;
}
