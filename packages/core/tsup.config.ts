import { defineConfig } from 'tsup';
import { shared } from '../../tsup.shared.ts';

// Three entries over shared chunks (ESM and CommonJS alike), so the user API and the kits load one
// copy of each class: a decision made by one is recognised by the other.
export default defineConfig({
  ...shared,
  entry: { index: 'src/index.ts', store: 'src/store-kit.ts', http: 'src/http-kit.ts' },
  splitting: true,
});
