import fc from 'fast-check';
import {
  buildHeaders,
  byIp,
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
import type { Decision, DecisionEvent, LayerResult } from '@floodgate/core';
import { limiterKey } from '../redis/fixtures/client.ts';
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
        fc.constantFrom('draft-6', 'draft-7', 'draft-8', 'draft-11') as fc.Arbitrary<
          'draft-6' | 'draft-7' | 'draft-8' | 'draft-11'
        >,
        fc.array(fc.string({ maxLength: 200 }), { minLength: 4, maxLength: 4 }),
        (layers, draft, keys) => {
          const unique = layers.filter((layer, i) => layers.findIndex((l) => l.rule === layer.rule) === i);
          // A limiter's decision carries its store calls; draft-11 derives `pk` from their keys.
          const decision = Object.assign(decisionOf(unique), { calls: unique.map((_, i) => ({ key: keys[i] })) });
          const headers = buildHeaders(decision, {
            standardHeaders: draft,
            legacyHeaders: true,
            now: NOW,
            ...(draft === 'draft-11' ? { partitionKey: { secret: 'a fuzzing secret, 32 bytes long' } } : {}),
          });
          if (draft === 'draft-8' || draft === 'draft-11') {
            for (const name of ['RateLimit-Policy', 'RateLimit']) {
              const list = parseList(headers[name] as string);
              expect(list).toHaveLength(unique.length);
              for (const [, params] of list) {
                for (const value of params.values()) {
                  if (typeof value === 'number')
                    expect(Number.isInteger(value) && value >= 0 && value < 1e15).toBe(true);
                }
                if (draft === 'draft-11') expect(params.get('pk')).toBeInstanceOf(ArrayBuffer);
              }
            }
          }
          if (draft === 'draft-11' && headers['Retry-After'] !== undefined) {
            // §6: Retry-After is never earlier than the effective window of a layer with nothing left.
            for (const [, params] of parseList(headers.RateLimit as string)) {
              if (params.get('r') === 0 && params.has('t'))
                expect(Number(headers['Retry-After'])).toBeGreaterThanOrEqual(params.get('t') as number);
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
      for (const standardHeaders of ['draft-8', 'draft-11'] as const) {
        const headers = buildHeaders(decision, { standardHeaders, now: NOW });
        for (const name of ['RateLimit-Policy', 'RateLimit'])
          expect(() => parseList(headers[name] as string), `${algorithm.kind} ${name}`).not.toThrow();
        expect(parseList(headers['RateLimit-Policy'] as string)[0]?.[1].get('q')).toBeLessThan(1e15);
      }
    }
  });
});

describe.each(drivers)('$name: random requests against a spent limit', (driver) => {
  it.each(['draft-8', 'draft-11'] as const)(
    '%s: never answer 5xx, never pass, and always send parseable fields',
    async (draft) => {
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
            standardHeaders: draft,
            ...(draft === 'draft-11' ? { partitionKey: { secret: 'a fuzzing secret, 32 bytes long' } } : {}),
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
                for (const name of ['ratelimit', 'ratelimit-policy']) {
                  const field = response.headers[name];
                  if (field !== undefined) expect(() => parseList(field as string), name).not.toThrow();
                }
                const retryAfter = response.headers['retry-after'];
                if (retryAfter !== undefined) expect(retryAfter).toMatch(/^\d+$/);
              },
            ),
            { numRuns: 60 },
          );
        },
      );
    },
  );
});

/**
 * Issue 19, item 9: one client, any spelling. A random IPv4 client (written plain, with a port,
 * IPv4-mapped, SIIT, NAT64, IPv4-compatible, 6to4 or Teredo, dotted or hex, bracketed or not) or a
 * random IPv6 host (compressed, expanded, upper case, bracketed, with a port or a zone id), sent
 * through a trusted proxy in X-Forwarded-For: every framework keys each spelling as the IPv4
 * address, or as the host's /56, which the oracle below computes without the library.
 */

/** Public /8 blocks: an address in them is the 6to4 site's or the Teredo client's own. */
const PUBLIC_FIRST_OCTETS = [8, 9, 12, 13, 20, 23, 31, 34, 45, 52, 62, 77, 81, 93, 104, 151, 185, 212, 217];

const hex16 = (n: number) => n.toString(16);
const ipv4Arb = fc.tuple(
  fc.constantFrom(...PUBLIC_FIRST_OCTETS),
  fc.integer({ min: 0, max: 255 }),
  fc.integer({ min: 0, max: 255 }),
  fc.integer({ min: 0, max: 255 }),
);

/** The two 16-bit groups of an IPv4 address, in hex, each XORed with `mask` (Teredo inverts them). */
const groupsOf = (o: number[], mask = 0) => [
  hex16((((o[0] as number) << 8) | (o[1] as number)) ^ mask),
  hex16((((o[2] as number) << 8) | (o[3] as number)) ^ mask),
];

/** The spellings of an IPv4 client; each yields the same key as the dotted quad. */
const IPV4_SPELLINGS: ((o: number[]) => string)[] = [
  (o) => o.join('.'),
  (o) => `${o.join('.')}:${1024 + (o[3] as number)}`,
  (o) => `::ffff:${o.join('.')}`,
  (o) => `[::ffff:${o.join('.')}]:443`,
  (o) => `::FFFF:${groupsOf(o).join(':')}`,
  (o) => `::ffff:0:${o.join('.')}`,
  (o) => `[::ffff:0:${o.join('.')}]`,
  (o) => `64:ff9b::${o.join('.')}`,
  (o) => `64:ff9b::${groupsOf(o).join(':')}`,
  (o) => `[64:ff9b::${o.join('.')}]`,
  (o) => `[64:ff9b::${o.join('.')}]:8080`,
  (o) => `::${groupsOf(o).join(':')}`,
  (o) => `2002:${groupsOf(o).join(':')}::1`,
  (o) => `[2001:0:4136:e378:8000:63bf:${groupsOf(o, 0xffff).join(':')}]`,
];

/** A global unicast IPv6 host outside every prefix that embeds IPv4 (2400::/6 holds none). */
const ipv6Arb = fc.tuple(
  fc.integer({ min: 0x2400, max: 0x27ff }),
  fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 7, maxLength: 7 }),
);

/** RFC 5952 text of eight groups, by the URL parser (not by the library under test). */
const canonical = (parts: number[]) => new URL(`http://[${parts.map(hex16).join(':')}]/`).hostname.slice(1, -1);

const IPV6_SPELLINGS: ((parts: number[]) => string)[] = [
  (p) => canonical(p),
  (p) => p.map((n) => n.toString(16).padStart(4, '0')).join(':'),
  (p) => canonical(p).toUpperCase(),
  (p) => `[${canonical(p)}]`,
  (p) => `[${canonical(p)}]:${1024 + ((p[7] as number) % 50000)}`,
  (p) => `${canonical(p)}%eth0`,
  (p) => `[${canonical(p)}%25en0]:80`,
];

/** The /56 network of a host: the first 56 bits kept. */
const slash56 = (parts: number[]) => canonical(parts.map((n, i) => (i < 3 ? n : i === 3 ? n & 0xff00 : 0)));

const clientArb = fc.oneof(
  fc.record({
    ipv4: ipv4Arb,
    first: fc.nat(IPV4_SPELLINGS.length - 1),
    second: fc.nat(IPV4_SPELLINGS.length - 1),
  }),
  fc.record({
    ipv6: ipv6Arb,
    first: fc.nat(IPV6_SPELLINGS.length - 1),
    second: fc.nat(IPV6_SPELLINGS.length - 1),
  }),
);

describe.each(drivers)('$name: one client in any spelling through a trusted proxy (issue 19, item 9)', (driver) => {
  it('keys every spelling of an IPv4 client as the address, and of an IPv6 host as its /56', async () => {
    const algorithm = fixedWindow({ limit: 1_000_000, window: '1h' });
    const prefix = `fuzz-forms-${process.pid}`;
    const keys: string[] = [];
    const options = {
      prefix,
      limits: [{ name: 'ip', key: byIp(), algorithm }],
      onDecision: (event: DecisionEvent) => keys.push(event.keys[0] as string),
    };
    await withApp(driver, { options, trustProxy: ['127.0.0.1'] }, async (app) => {
      await fc.assert(
        fc.asyncProperty(clientArb, async (client) => {
          let forms: string[];
          let identity: string;
          if ('ipv4' in client) {
            forms = [client.first, client.second].map((i) =>
              (IPV4_SPELLINGS[i] as (o: number[]) => string)(client.ipv4),
            );
            identity = client.ipv4.join('.');
          } else {
            const parts = [client.ipv6[0], ...client.ipv6[1]];
            forms = [client.first, client.second].map((i) => (IPV6_SPELLINGS[i] as (p: number[]) => string)(parts));
            identity = slash56(parts);
          }
          keys.length = 0;
          for (const form of forms) {
            expect((await get(app.url, '/', { 'x-forwarded-for': form })).status, form).toBe(200);
          }
          expect(keys, forms.join(' then ')).toEqual(new Array(2).fill(limiterKey(prefix, 'ip', algorithm, identity)));
        }),
        { numRuns: 50 },
      );
    });
  });
});
