/// <reference types="node" />
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../src');
const DEPENDENCIES = Object.keys(
  (JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')) as { dependencies: object })
    .dependencies,
);
const NODE = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);

/** Every module specifier a file imports or re-exports, statically or dynamically. */
function specifiers(source: string): string[] {
  const found = [...source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((match) => match[1] as string);
  return found.concat([...source.matchAll(/require\(\s*['"]([^'"]+)['"]/g)].map((match) => match[1] as string));
}

/** `@scope/name/sub` and `name/sub` are imports of `@scope/name` and `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

describe('@floodgate/core runs on edge runtimes', () => {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));

  it('imports only its own files and its declared dependencies, nothing from Node', () => {
    expect(files.length).toBeGreaterThan(30);
    for (const file of files) {
      for (const specifier of specifiers(readFileSync(join(SRC, file), 'utf8'))) {
        expect(NODE.has(specifier.split('/')[0] as string), `${file}: ${specifier}`).toBe(false);
        if (!specifier.startsWith('.')) expect(DEPENDENCIES, `${file}: ${specifier}`).toContain(packageOf(specifier));
      }
    }
  });

  it('does not reach for Node globals (process, Buffer, require)', () => {
    for (const file of files) {
      expect(readFileSync(join(SRC, file), 'utf8'), file).not.toMatch(/\b(process\.|Buffer\.|require\()/);
    }
  });
});
