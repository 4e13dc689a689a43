/// <reference types="node" />
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../src');
const NODE = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
const files = readdirSync(SRC).filter((name) => name.endsWith('.ts'));

describe('@floodgate/client runs wherever fetch does (Workers, Deno, browsers, Node)', () => {
  it('imports only its own files: no Node module, no dependency', () => {
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const source = readFileSync(join(SRC, file), 'utf8');
      for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        expect(specifier, file).toMatch(/^\.\//);
        expect(NODE.has(specifier as string), file).toBe(false);
      }
    }
    const manifest = JSON.parse(readFileSync(join(SRC, '../package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
  });

  it('does not reach for Node globals (process, Buffer, require)', () => {
    for (const file of files) {
      expect(readFileSync(join(SRC, file), 'utf8'), file).not.toMatch(/\b(process\.|Buffer\.|require\(|setImmediate)/);
    }
  });
});
