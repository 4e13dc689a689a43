import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The part of esbuild's API used here (esbuild ships its own types, but is not a dependency of this package). */
interface EsbuildApi {
  build(options: Record<string, unknown>): Promise<{
    outputFiles: { text: string; contents: Uint8Array }[];
    metafile: { outputs: Record<string, { imports: { path: string; external?: boolean }[] }> };
  }>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));
const source = (path: string) => join(root, 'packages', path);

export interface WorkerBundle {
  code: string;
  /** Minified size and gzipped size of the minified code, in bytes. */
  minified: number;
  gzipped: number;
  /** Every import left in the bundle (there should be none: a Worker is one module). */
  imports: string[];
}

export interface BundleOptions {
  /** Packages left out of the bundle, e.g. `hono` to size Floodgate alone. */
  external?: string[];
}

/**
 * Bundles a Worker from `test/edge/workers/<name>.ts` the way wrangler does (esbuild, ESM, the
 * `workerd`/`worker`/`browser` export conditions), with every @floodgate/* package from its
 * TypeScript source. `node:*` imports are left external, never resolved, so that `imports` shows
 * any that creep in. esbuild comes with tsup, a root dev dependency.
 */
export async function bundleWorker(name: string, options: BundleOptions = {}): Promise<WorkerBundle> {
  const tsup = realpathSync(join(root, 'node_modules', 'tsup'));
  const esbuild = createRequire(join(tsup, 'package.json'))('esbuild') as EsbuildApi;
  const build = (minify: boolean) =>
    esbuild.build({
      entryPoints: [fileURLToPath(new URL(`./workers/${name}.ts`, import.meta.url))],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      conditions: ['workerd', 'worker', 'browser'],
      minify,
      metafile: true,
      external: ['node:*', ...(options.external ?? [])],
      alias: {
        '@floodgate/core/store': source('core/src/store-kit.ts'),
        '@floodgate/core/http': source('core/src/http-kit.ts'),
        '@floodgate/core': source('core/src/index.ts'),
        '@floodgate/hono': source('hono/src/index.ts'),
        '@floodgate/cloudflare': source('cloudflare/src/index.ts'),
      },
      logLevel: 'error',
    });
  const [readable, small] = await Promise.all([build(false), build(true)]);
  const output = readable.outputFiles[0] as { text: string };
  const minified = (small.outputFiles[0] as { contents: Uint8Array }).contents;
  const imports = Object.values(readable.metafile.outputs).flatMap((out) => out.imports.map((i) => i.path));
  return { code: output.text, minified: minified.length, gzipped: gzipSync(minified).length, imports };
}
