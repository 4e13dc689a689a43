import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildHeaders } from '@floodgate/core';
import { parseRetryAfter, readRateLimit } from '../src/index';
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

describe('readRateLimit reads what Floodgate sends', () => {
  it('draft-8: one policy per item, the binding one first, names matched across the two fields', () => {
    const headers = buildHeaders(denied, { standardHeaders: 'draft-8', legacyHeaders: false, now: NOW });
    expect(headers['RateLimit-Policy']).toBe('"ip";q=100;w=60, "user";q=1000;w=3600');
    expect(read(headers)).toEqual({
      retryAfter: 30_000,
      source: 'draft-8',
      policies: [
        { name: 'ip', limit: 100, window: 60_000, remaining: 0, reset: 30_000 },
        { name: 'user', limit: 1000, window: 3_600_000, remaining: 500, reset: 1_800_000 },
      ],
    });
  });

  it('draft-7: the RateLimit dictionary and the window from RateLimit-Policy', () => {
    const headers = buildHeaders(denied, { standardHeaders: 'draft-7', legacyHeaders: false, now: NOW });
    expect(read(headers)).toEqual({
      retryAfter: 30_000,
      source: 'draft-7',
      policies: [{ name: '', limit: 100, remaining: 0, reset: 30_000, window: 60_000 }],
    });
  });

  it('draft-6: RateLimit-Limit, -Remaining, -Reset and the window from RateLimit-Policy', () => {
    const headers = buildHeaders(denied, { standardHeaders: 'draft-6', legacyHeaders: false, now: NOW });
    expect(read(headers)).toEqual({
      retryAfter: 30_000,
      source: 'draft-6',
      policies: [{ name: '', limit: 100, remaining: 0, reset: 30_000, window: 60_000 }],
    });
  });

  it('X-RateLimit-*: the reset in Unix seconds becomes the time from now', () => {
    const headers = buildHeaders(denied, { standardHeaders: false, legacyHeaders: true, now: NOW });
    expect(headers['X-RateLimit-Reset']).toBe(String(Math.ceil((NOW + 29_750) / 1000)));
    expect(read(headers)).toEqual({
      retryAfter: 30_000,
      source: 'x-ratelimit',
      policies: [{ name: '', limit: 100, remaining: 0, reset: 29_750 }],
    });
  });

  it('prefers the standard fields to X-RateLimit-* when both are sent', () => {
    const headers = buildHeaders(denied, { standardHeaders: 'draft-8', legacyHeaders: true, now: NOW });
    expect(read(headers).source).toBe('draft-8');
  });
});

describe('readRateLimit reads other servers', () => {
  it('draft-08 token names, partition keys and quota units', () => {
    expect(
      read({
        'RateLimit-Policy': 'burst;q=100;w=60;qu="requests","daily";q=1000;w=86400;pk=:cHsdsRa894==:',
        RateLimit: 'burst;r=0;t=5, "daily";r=999;t=80000;pk=:cHsdsRa894==:',
      }).policies,
    ).toEqual([
      { name: 'burst', remaining: 0, reset: 5000, limit: 100, window: 60_000 },
      { name: 'daily', remaining: 999, reset: 80_000_000, limit: 1000, window: 86_400_000 },
    ]);
  });

  it('a draft-8 policy without its state, and state without a policy', () => {
    expect(read({ 'RateLimit-Policy': '"p";q=10;w=1' }).policies).toEqual([{ name: 'p', limit: 10, window: 1000 }]);
    expect(read({ RateLimit: '"p";r=3' }).policies).toEqual([{ name: 'p', remaining: 3 }]);
  });

  it('draft-7 picks the RateLimit-Policy item whose quota matches the limit', () => {
    const state = read({ RateLimit: 'limit=50, remaining=7, reset=3', 'RateLimit-Policy': '10;w=1, 50;w=60' });
    expect(state.policies).toEqual([{ name: '', limit: 50, remaining: 7, reset: 3000, window: 60_000 }]);
  });

  it('draft-6 as a list (an early form: RateLimit-Limit: 10, 10;w=1)', () => {
    expect(read({ 'RateLimit-Limit': '10, 10;w=1', 'RateLimit-Remaining': '4' }).policies).toEqual([
      { name: '', limit: 10, remaining: 4 },
    ]);
  });

  it('X-RateLimit-Reset as seconds from now, decimals allowed', () => {
    expect(read({ 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1.5' }).policies).toEqual([
      { name: '', remaining: 0, reset: 1500 },
    ]);
  });

  it('X-RateLimit-* fills in when the standard fields carry only a policy', () => {
    const state = read({ 'RateLimit-Policy': '"p";q=10;w=1', 'X-RateLimit-Remaining': '2', 'X-RateLimit-Reset': '4' });
    expect(state).toEqual({ source: 'x-ratelimit', policies: [{ name: '', remaining: 2, reset: 4000 }] });
  });

  it('nothing at all', () => {
    expect(read({})).toEqual({ policies: [] });
  });
});

describe('edge values', () => {
  it('takes the largest Structured Field integer and drops anything beyond it or below zero', () => {
    expect(read({ RateLimit: '"p";r=999999999999999;t=0' }).policies).toEqual([
      { name: 'p', remaining: 999_999_999_999_999, reset: 0 },
    ]);
    // A 16-digit integer is a syntax error: the whole field goes.
    expect(read({ RateLimit: '"p";r=1000000000000000' }).policies).toEqual([]);
    expect(read({ RateLimit: '"p";r=-1;t=2' }).policies).toEqual([{ name: 'p', reset: 2000 }]);
    expect(read({ RateLimit: '"p";r=1.5;t="2"' }).policies).toEqual([{ name: 'p' }]);
    expect(read({ 'X-RateLimit-Remaining': '-1', 'X-RateLimit-Limit': '1e3' }).policies).toEqual([]);
  });

  it('an X-RateLimit-Reset already past is a reset of 0', () => {
    const past = String(Math.floor(NOW / 1000) - 10);
    expect(read({ 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': past }).policies[0]?.reset).toBe(0);
  });
});

describe('parseRetryAfter', () => {
  it('delta-seconds, and a decimal some servers send', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
    expect(parseRetryAfter('1.5', NOW)).toBe(1500);
    expect(parseRetryAfter('999999999999999', NOW)).toBe(999_999_999_999_999_000);
  });

  it('the three HTTP-date formats, read as UTC; a date past is 0', () => {
    expect(parseRetryAfter('Fri, 01 May 2026 12:00:30 GMT', NOW)).toBe(29_750);
    expect(parseRetryAfter('Friday, 01-May-26 12:00:30 GMT', NOW)).toBe(29_750);
    expect(parseRetryAfter('Fri May  1 12:00:30 2026', NOW)).toBe(29_750);
    expect(parseRetryAfter('Thu, 30 Apr 2026 12:00:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(0);
  });

  it('anything else is unreadable', () => {
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
  });
});

describe('garbage never throws', () => {
  const fields = ['RateLimit', 'RateLimit-Policy', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
  const legacy = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'];
  const syntax = fc.constantFrom(...'"p;qrtw=0123456789-.,() :?@%*abcXYZ\t'.split(''));
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
            ...state.policies.flatMap((p) => [p.limit, p.window, p.remaining, p.reset]),
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
