import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Redis Cluster runs a script only on the node that owns its declared keys, and rejects access to
 * any other key. So every key the Lua touches must come from KEYS[], never be built inside Lua.
 * This reads lua/ as text (catalogue D46); the cluster suites run every script for real.
 */
const LUA = join(import.meta.dirname, '../../lua');
const files = readdirSync(LUA)
  .filter((name) => name.endsWith('.lua'))
  .map((name) => ({ name, source: readFileSync(join(LUA, name), 'utf8') }));

/** Every `redis.call(...)` / `redis.pcall(...)` with its argument text, parentheses balanced. */
function redisCalls(source: string): { args: string }[] {
  const calls: { args: string }[] = [];
  for (const match of source.matchAll(/redis\.p?call\(/g)) {
    let depth = 1;
    let end = (match.index ?? 0) + match[0].length;
    const start = end;
    while (depth > 0 && end < source.length) {
      if (source[end] === '(') depth++;
      if (source[end] === ')') depth--;
      end++;
    }
    calls.push({ args: source.slice(start, end - 1) });
  }
  return calls;
}

describe('the Lua scripts touch only the keys they are given (D46)', () => {
  it('finds the scripts', () => {
    expect(files.map((file) => file.name)).toEqual(expect.arrayContaining(['composer.lua', 'fixed-window.lua']));
  });

  it('passes `key` as the key of every Redis command, and TIME takes none', () => {
    const calls = files.flatMap(({ name, source }) => redisCalls(source).map((call) => ({ file: name, ...call })));
    expect(calls.length).toBeGreaterThan(20);
    for (const { file, args } of calls) {
      const [command, key] = args.split(',').map((part) => part.trim());
      if (command === "'TIME'") expect(args.trim(), file).toBe("'TIME'");
      else expect(['key', 'strikes_key'], `${file}: redis.call(${args})`).toContain(key);
    }
  });

  it('never assigns `key`: it is always a parameter, and the composer hands each layer its own KEYS entry', () => {
    for (const { name, source } of files) {
      expect(source, name).not.toMatch(/\b(strikes_)?key\s*=[^=]/);
      expect(source, name).not.toMatch(/\blocal\s+(strikes_)?key\b/);
      for (const match of source.matchAll(/function\s*\w*\s*\(([^)]*)\)/g)) {
        const params = (match[1] ?? '').split(',').map((param) => param.trim());
        if (params.includes('key')) expect(params[0], `${name}: ${match[0]}`).toBe('key');
        if (params.includes('strikes_key')) expect(params[1], `${name}: ${match[0]}`).toBe('strikes_key');
      }
    }
    // Helpers that take a key (`local function hash_numbers(key, ...)`) are only ever handed `key`
    // (the composer hands the algorithms `L_key[i]`, checked below).
    const all = files.map((file) => file.source).join('\n');
    const takingKey = [...all.matchAll(/local\s+function\s+(\w+)\s*\(\s*key\b/g)].map((match) => match[1] as string);
    expect(takingKey.length).toBeGreaterThan(3);
    for (const helper of takingKey) {
      for (const call of all.matchAll(new RegExp(`(?<!function\\s)\\b${helper}\\(([^,)]*)(,\\s*([^,)]*))?`, 'g'))) {
        expect(['key', 'L_key[i]'], `${helper}(${call[1]}`).toContain(call[1]?.trim());
        // A helper that also takes a strikes key is handed the one from KEYS.
        if (/strikes/.test(call[3] ?? '')) expect(['strikes_key', 'L_strikes[i]']).toContain(call[3]?.trim());
      }
    }
    const composer = files.find((file) => file.name === 'composer.lua')?.source ?? '';
    const handed = [...composer.matchAll(/\.(decide|refund|write)\(([^,]+),/g)].map((match) => match[2]?.trim());
    expect(handed.length).toBeGreaterThan(0);
    expect(new Set(handed)).toEqual(new Set(['L_key[i]']));
    // ...and L_key[i] is only ever filled from KEYS, in order.
    const filled = [...composer.matchAll(/\bL_(key|strikes)\[i\]\s*=[^=][^\n]*/g)].map((match) => match[0].trim());
    expect(filled).toEqual(['L_key[i] = KEYS[key_base]', 'L_strikes[i] = KEYS[key_base]', 'L_strikes[i] = nil']);
  });
});
