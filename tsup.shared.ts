import { defineConfig } from 'tsup';

/** Every package builds the same way: ESM and CommonJS with type declarations for each. */
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  // Middleware are named functions (`rateLimit`, `floodgate`), as stack traces and Express' router show them.
  keepNames: true,
});
