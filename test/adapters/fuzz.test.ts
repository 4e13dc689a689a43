import fc from 'fast-check';
import {
  buildHeaders,
  concurrency,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingLog,
  slidingWindow,
  tokenBucket,
} from '@floodgate/core';
import { parseList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { drivers, get } from './drivers.ts';
import { withApp } from './suite.ts';
import type { Decision, LayerResult } from '@floodgate/core';
import { ALGORITHM_KINDS as KINDS } from '../redis/fixtures/algorithms.ts';

/**
 * Issue 9, item 6 and "fuzz the HTTP surface": whatever the numbers and whatever the client sends,
 * the rate-limit fields parse as RFC 9651 Structured Fields, Retry-After is a whole number of
 * seconds, nothing answers 5xx, and no request passes a spent limit.
 */

const big = fc.oneof(
  fc.integer({ min: 0, max: 1000 }),
  fc.constantFrom(0, 1, 999_999_999_999_999, 1e15, 2 ** 53 - 1),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
);

const layerArb = fc.record({
  rule: fc.stringMatching(/^[A-Za-z0-9._-]{1,64}$/),
  kind: fc.constantFrom(...KINDS),
  allowed: fc.boolean(),
  limit: big,
  remaining: big,
  resetAt: big,
  window: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  retryAfter: big,
  delay: fc.constant(0),
  shadow: fc.constant(false),
});

const NOW = Date.UTC(2030, 0, 1);

function decisionOf(results: LayerResult[]): Decision {
  const allowed = results.every((layer) => layer.allowed);
  const binding = results[0] as LayerResult;
  return {
    allowed,
    limit: binding.limit,
    remaining: binding.remaining,
    resetAt: binding.resetAt,
    retryAfter: allowed ? 0 : Math.max(1, ...results.map((layer) => layer.retryAfter)),
    delay: 0,
    rule: binding.rule,
    results,
    degraded: false,
    shadowDenied: false,
  };
}

describe('the rate-limit fields, whatever the numbers', () => {
  it('parse as Structured Field lists with integers of at most 15 digits, and Retry-After is whole seconds', () => {
    fc.assert(
      fc.property(
        fc.array(layerArb, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('draft-6', 'draft-7', 'draft-8') as fc.Arbitrary<'draft-6' | 'draft-7' | 'draft-8'>,
        (layers, draft) => {
          const unique = layers.filter((layer, i) => layers.findIndex((l) => l.rule === layer.rule) === i);
          const headers = buildHeaders(decisionOf(unique), { standardHeaders: draft, legacyHeaders: true, now: NOW });
          if (draft === 'draft-8') {
            for (const name of ['RateLimit-Policy', 'RateLimit']) {
              const list = parseList(headers[name] as string);
              expect(list).toHaveLength(unique.length);
              for (const [, params] of list) {
                for (const value of params.values()) {
                  if (typeof value === 'number')
                    expect(Number.isInteger(value) && value >= 0 && value < 1e15).toBe(true);
                }
              }
            }
          }
          for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']) {
            const value = headers[name];
            if (value !== undefined) expect(value, name).toMatch(/^\d{1,15}$/);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('stay valid for limits and windows at the edges every algorithm accepts', () => {
    const algorithms = [
      fixedWindow({ limit: Number.MAX_SAFE_INTEGER, window: 1 }),
      slidingLog({ limit: 10_000, window: Number.MAX_SAFE_INTEGER }),
      slidingWindow({ limit: 1, window: 1 }),
      tokenBucket({ capacity: 1e12, refillRate: 1 }),
      leakyBucket({ capacity: 1, leakRate: 1e6 }),
      gcra({ rate: 1, period: '1d', burst: 0 }),
      concurrency({ max: 2 ** 40 }),
    ];
    for (const algorithm of algorithms) {
      const decision = decisionOf([
        {
          rule: 'r',
          kind: algorithm.kind,
          allowed: true,
          limit: algorithm.limit,
          remaining: algorithm.limit,
          resetAt: NOW + algorithm.window,
          window: algorithm.window,
          retryAfter: 0,
          delay: 0,
          shadow: false,
        },
      ]);
      const headers = buildHeaders(decision, { now: NOW });
      expect(() => parseList(headers['RateLimit-Policy'] as string), algorithm.kind).not.toThrow();
      expect(parseList(headers['RateLimit-Policy'] as string)[0]?.[1].get('q')).toBeLessThan(1e15);
    }
  });
});

describe.each(drivers)('$name: random requests against a spent limit', (driver) => {
  it('never answer 5xx, never pass, and always send parseable fields', async () => {
    const limit = 2;
    await withApp(
      driver,
      {
        options: {
          limits: [
            {
              name: 'ip',
              key: (ctx: { ip: string | undefined }) => ctx.ip,
              algorithm: fixedWindow({ limit, window: '1h' }),
            },
          ],
          // From the request: a cost header and a user header the key function reads as it finds them.
          cost: (req: unknown) => Number(driver.headerOf(req, 'x-cost') ?? 1),
        },
      },
      async (app) => {
        for (let i = 0; i < limit; i++) expect((await get(app.url)).status).toBe(200);
        await fc.assert(
          fc.asyncProperty(
            fc.record({
              cost: fc.option(
                fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('0', '1', '-1', 'NaN', '1e309', '0x10')),
                {
                  nil: undefined,
                },
              ),
              forwarded: fc.option(fc.constantFrom('1.2.3.4', '8.8.8.8:4444', '[2001:db8::1]:1', 'garbage', ''), {
                nil: undefined,
              }),
              accept: fc.option(fc.constantFrom('text/plain', 'application/json', '*/*;q=0', 'x/y;q=abc'), {
                nil: undefined,
              }),
            }),
            async ({ cost, forwarded, accept }) => {
              const headers: Record<string, string> = {};
              // Header values must be printable; anything else never reaches the app.
              if (cost !== undefined && /^[\x20-\x7e]*$/.test(cost)) headers['x-cost'] = cost;
              if (forwarded !== undefined) headers['x-forwarded-for'] = forwarded;
              if (accept !== undefined) headers.accept = accept;
              const response = await get(app.url, '/', headers);
              expect(response.status).toBe(429);
              if (response.headers.ratelimit !== undefined) {
                expect(() => parseList(response.headers.ratelimit as string)).not.toThrow();
              }
              const retryAfter = response.headers['retry-after'];
              if (retryAfter !== undefined) expect(retryAfter).toMatch(/^\d+$/);
            },
          ),
          { numRuns: 60 },
        );
      },
    );
  });
});
