import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildHeaders } from '@floodgate/core';
import { parseRetryAfter, readRateLimit } from '../src/index';
import { headerSets } from './header-sets/index';
import type { Decision, LayerResult } from '@floodgate/core';

const NOW = Date.UTC(2026, 4, 1, 12, 0, 0, 250);

const read = (fields: Record<string, string>, now = NOW) => readRateLimit(new Headers(fields), now);

function layer(rule: string, overrides: Partial<LayerResult> = {}): LayerResult {
  return {
    rule,
    kind: 'fixedWindow',
    allowed: true,
    limit: 100,
    remaining: 40,
    resetAt: NOW + 29_750,
    window: 60_000,
    retryAfter: 0,
    delay: 0,
    shadow: false,
    ...overrides,
  };
}

/** A denial by `ip` (no units left, free again in 29.75 s) while `user` still has 500 of 1000 for the hour. */
const denied: Decision = {
  allowed: false,
  limit: 100,
  remaining: 0,
  resetAt: NOW + 29_750,
  retryAfter: 29_750,
  delay: 0,
  rule: 'ip',
  results: [
    layer('user', { limit: 1000, remaining: 500, window: 3_600_000, resetAt: NOW + 1_800_000 }),
    layer('ip', { allowed: false, remaining: 0, retryAfter: 29_750 }),
  ],
  degraded: false,
  shadowDenied: false,
};

const spentIp = { name: '', unit: 'requests', limit: 100, remaining: 0, effectiveWindow: 30_000, window: 60_000 };

describe('readRateLimit reads what Floodgate sends', () => {
  it('draft-8: one policy per item, the binding one first, names matched across the two fields', () => {
    const headers = buildHeaders(denied, { standardHeaders: 'draft-8', legacyHeaders: false, now: NOW });
    expect(headers['RateLimit-Policy']).toBe('"ip";q=100;w=60, "user";q=1000;w=3600');
    expect(read(headers)).toEqual({
      retryAfter: 30_000,
      source: 'draft-8',
      policies: [
        { ...spentIp, name: 'ip' },
        { name: 'user', unit: 'requests', limit: 1000, window: 3_600_000, remaining: 500, effectiveWindow: 1_800_000 },
      ],
    });
  });

  it('draft-7: the RateLimit dictionary and the window from RateLimit-Policy', () => {
    const headers = buildHeaders(denied, { standardHeaders: 'draft-7', legacyHeaders: false, now: NOW });
    expect(read(headers)).toEqual({ retryAfter: 30_000, source: 'draft-7', policies: [spentIp] });
  });

  it('draft-6: RateLimit-Limit, -Remaining, -Reset and the window from RateLimit-Policy', () => {
    const headers = buildHeaders(denied, { standardHeaders: 'draft-6', legacyHeaders: false, now: NOW });
    expect(read(headers)).toEqual({ retryAfter: 30_000, source: 'draft-6', policies: [spentIp] });
  });

  it('X-RateLimit-*: the reset in Unix seconds becomes the time from now', () => {
    const headers = buildHeaders(denied, { standardHeaders: false, legacyHeaders: true, now: NOW });
    expect(headers['X-RateLimit-Reset']).toBe(String(Math.ceil((NOW + 29_750) / 1000)));
    expect(read(headers)).toEqual({
      retryAfter: 30_000,
      source: 'x-ratelimit',
      policies: [{ name: '', unit: 'requests', limit: 100, remaining: 0, effectiveWindow: 29_750 }],
    });
  });

  it('prefers the standard fields to X-RateLimit-* when both are sent', () => {
    const headers = buildHeaders(denied, { standardHeaders: 'draft-8', legacyHeaders: true, now: NOW });
    expect(read(headers).source).toBe('draft-8');
  });
});

describe('readRateLimit reads the header sets servers send, draft-6 to draft-11 and legacy', () => {
  it.each(headerSets(NOW))('$name', (set) => {
    expect(readRateLimit(new Headers(set.lines), NOW)).toEqual(set.read);
  });

  it('X-RateLimit-* fills in when the standard fields carry only a policy', () => {
    const state = read({ 'RateLimit-Policy': '"p";q=10;w=1', 'X-RateLimit-Remaining': '2', 'X-RateLimit-Reset': '4' });
    expect(state).toEqual({
      source: 'x-ratelimit',
      policies: [{ name: '', unit: 'requests', remaining: 2, effectiveWindow: 4000 }],
    });
  });

  it('X-RateLimit-Reset as a decimal, an HTTP-date or an RFC 3339 date; one already past is 0', () => {
    const reset = (value: string) => read({ 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': value }).policies;
    expect(reset('1.5')[0]?.effectiveWindow).toBe(1500);
    expect(reset('Fri, 01 May 2026 12:00:30 GMT')[0]?.effectiveWindow).toBe(29_750);
    expect(reset('2026-05-01T12:00:30Z')[0]?.effectiveWindow).toBe(29_750);
    expect(reset('2026-05-01T14:00:30+02:00')[0]?.effectiveWindow).toBe(29_750);
    expect(reset(String(Math.floor(NOW / 1000) - 10))[0]?.effectiveWindow).toBe(0);
  });

  it('the early draft form RateLimit-Limit: 10, 10;w=1 (drafts 0 to 2)', () => {
    expect(read({ 'RateLimit-Limit': '10, 10;w=1', 'RateLimit-Remaining': '4' }).policies).toEqual([
      { name: '', unit: 'requests', limit: 10, remaining: 4 },
    ]);
  });

  it('a partition key sent with and without padding, or with stray pad bits, is one key', () => {
    const keys = ['cHsdsRa89w==', 'cHsdsRa89w', 'cHsdsRa894=='].map(
      (pk) => read({ RateLimit: `"p";r=1;pk=:${pk}:` }).policies[0]?.partitionKey,
    );
    expect(keys).toEqual(['cHsdsRa89w==', 'cHsdsRa89w==', 'cHsdsRa89w==']);
  });

  it('the same policy name for two partitions is two policies, each joined to its own RateLimit-Policy item', () => {
    const state = read({
      'RateLimit-Policy': '"user";q=10;w=60;pk=:QQ==:, "user";q=20;w=60;pk=:Qg==:',
      RateLimit: '"user";r=0;t=9;pk=:Qg==:, "user";r=7;t=30;pk=:QQ==:',
    });
    expect(state.policies.map((p) => [p.partitionKey, p.limit, p.remaining])).toEqual([
      ['Qg==', 20, 0],
      ['QQ==', 10, 7],
    ]);
  });

  it('the unit registry’s "request" (draft-11 §10.3) is the "requests" of §3.1.2', () => {
    expect(read({ 'RateLimit-Policy': '"p";q=5;qu="request"' }).policies[0]?.unit).toBe('requests');
  });

  it('nothing at all', () => {
    expect(read({})).toEqual({ policies: [] });
  });
});

describe('parseRetryAfter', () => {
  it('delta-seconds, and a decimal some servers send', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
    expect(parseRetryAfter('1.5', NOW)).toBe(1500);
  });

  it('a delay too large to represent counts as 2^31 seconds (RFC 9111 §1.2.2), not as garbage', () => {
    expect(parseRetryAfter('999999999999999', NOW)).toBe(2 ** 31 * 1000);
    expect(parseRetryAfter('9'.repeat(400), NOW)).toBe(2 ** 31 * 1000);
  });

  it('the three HTTP-date formats, read as UTC; a date past is 0', () => {
    expect(parseRetryAfter('Fri, 01 May 2026 12:00:30 GMT', NOW)).toBe(29_750);
    expect(parseRetryAfter('Friday, 01-May-26 12:00:30 GMT', NOW)).toBe(29_750);
    expect(parseRetryAfter('Fri May  1 12:00:30 2026', NOW)).toBe(29_750);
    expect(parseRetryAfter('Thu, 30 Apr 2026 12:00:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(0);
  });

  it('anything else is unreadable, and readRateLimit says so', () => {
    for (const value of [null, '', 'soon', '-1', '1e3', '0x10', '12 s', 'Infinity', 'NaN', '1.', '.5']) {
      expect(parseRetryAfter(value, NOW), String(value)).toBeUndefined();
    }
    for (const date of [
      'Fri, 31 Feb 2026 12:00:00 GMT',
      'Fri, 01 May 2026 24:00:00 GMT',
      'Fri, 01 May 2026 12:00:00 UTC',
    ]) {
      expect(parseRetryAfter(date, NOW), date).toBeUndefined();
    }
    expect(read({ 'Retry-After': 'soon' })).toEqual({
      policies: [],
      ignored: [{ field: 'retry-after', reason: 'malformed' }],
    });
  });
});

// Thousands of generated cases: seconds on a busy machine, past vitest's 5 s default.
describe('garbage never throws', { timeout: 60_000 }, () => {
  const fields = ['RateLimit', 'RateLimit-Policy', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Age'];
  const legacy = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'];
  const syntax = fc.constantFrom(...'"p;qrtwk=0123456789-.,() :?@%*abcXYZ\t'.split(''));
  const text = fc.oneof(
    fc.array(syntax, { maxLength: 30 }).map((chars) => chars.join('')),
    fc.string({ unit: 'binary', maxLength: 30 }),
  );

  it('any field values give finite, non-negative numbers or none', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...fields, ...legacy), text),
        fc.integer({ min: 0, max: 2 ** 42 }),
        (raw, now) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(raw)) {
            // Headers rejects what HTTP cannot carry (NUL, CR, LF, non-Latin-1); a server could not send it.
            try {
              headers.set(name, value);
            } catch {}
          }
          const state = readRateLimit(headers, now);
          const numbers = [
            state.retryAfter,
            ...state.policies.flatMap((p) => [p.limit, p.window, p.remaining, p.effectiveWindow]),
          ];
          for (const value of numbers) {
            if (value !== undefined) expect(Number.isFinite(value) && value >= 0, String(value)).toBe(true);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
