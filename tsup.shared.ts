import { defineConfig, type Options } from 'tsup';

/** Every package builds the same way: ESM and CommonJS with type declarations for each. */
export const shared: Options = {
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  // No source maps: the build is not minified, and the published files leave maps out.
  sourcemap: false,
  clean: true,
  target: 'es2022',
  // No keepNames: the build is not minified, so functions keep their names anyway, and keepNames
  // wraps every closure made per request in a __name() call (an Object.defineProperty each).
};

export default defineConfig(shared);
