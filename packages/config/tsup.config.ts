import { defineConfig } from 'tsup';
import { shared } from '../../tsup.shared.ts';

// schema/ is copied into dist/ as it is: dist/limits.schema.json, for editors' "$schema".
// Node built-ins keep their node: prefix, so the packed-install check (and readers) see them as built-ins.
export default defineConfig({ ...shared, publicDir: 'schema', removeNodeProtocol: false });
