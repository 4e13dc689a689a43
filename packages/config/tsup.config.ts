import { defineConfig } from 'tsup';
import { shared } from '../../tsup.shared.ts';

// schema/ is copied into dist/ as it is: dist/limits.schema.json, for editors' "$schema".
export default defineConfig({ ...shared, publicDir: 'schema' });
