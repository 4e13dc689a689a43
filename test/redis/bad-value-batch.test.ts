import { describe, expect, it } from 'vitest';
import {
  concurrency,
  createLimiter,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingLog,
  slidingWindow,
  tokenBucket,
} from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { freshPrefix, limiterKey, storedKey } from './fixtures/client.ts';
import { useRedis } from './fixtures/suite.ts';
import { contextOf } from '../helpers/context.ts';
import type { Algorithm, FloodgateWarning, StoreErrorEvent } from '@floodgate/core';

const suite = useRedis();

/**
 * Issue 19, item 4: a bad value on one key is that key's problem. A field holding 2^53 (within
 * what a stored number may be, but past what any arithmetic on it can answer exactly) and a key of
 * the wrong Redis type under peek, block and unblock: the key is decided (as new when its state
 * cannot be used), reported once, and never fails the other requests of the same script call or
 * counts against the store.
 */
const HASHES: [string, Algorithm, string[]][] = [
  ['fixedWindow', fixedWindow({ limit: 5, window: '1m' }), ['start', 'count']],
  ['slidingWindow', slidingWindow({ limit: 5, window: '1m' }), ['start', 'curr', 'prev']],
  ['tokenBucket', tokenBucket({ capacity: 5, refillRate: 1 }), ['level', 'at']],
  ['leakyBucket', leakyBucket({ capacity: 5, leakRate: 1 }), ['level', 'at']],
  ['gcra', gcra({ rate: 5, period: '1m', burst: 4 }), ['level', 'at']],
];
const ALL: [string, Algorithm][] = [
  ...HASHES.map(([name, algorithm]) => [name, algorithm] as [string, Algorithm]),
  ['slidingLog', slidingLog({ limit: 5, window: '1m' })],
  ['concurrency', concurrency({ max: 5 })],
];

function setup(algorithm: Algorithm) {
  const prefix = freshPrefix('bad-value');
  const warnings: FloodgateWarning[] = [];
  const storeErrors: StoreErrorEvent[] = [];
  const breakers: string[] = [];
  const limiter = createLimiter({
    store: new RedisStore({ client: suite.client, prefix, onWarning: (w) => warnings.push(w) }),
    // 'closed': a request that reached the fallback would be denied and flagged unavailable.
    failMode: 'closed',
    breaker: { failureThreshold: 5 },
    denyCache: false,
    onStoreError: (event) => storeErrors.push(event),
    onBreakerChange: (change) => breakers.push(change.to),
    limits: [{ name: 'tenant', key: (ctx) => ctx.header('x-tenant'), algorithm }],
  });
  const keyOf = (tenant: string) => storedKey(prefix, limiterKey('fg', 'tenant', algorithm, tenant));
  const ctx = (tenant: string) => contextOf({ headers: { 'x-tenant': tenant } });
  return { limiter, keyOf, ctx, warnings, storeErrors, breakers };
}

/** Script calls the server has run so far (EVALSHA and EVAL), from INFO commandstats. */
async function scriptCalls(): Promise<number> {
  const info = await suite.client.info('commandstats');
  let calls = 0;
  for (const match of info.matchAll(/^cmdstat_(evalsha|eval):calls=(\d+)/gm)) calls += Number(match[2]);
  return calls;
}

describe('a field holding 2^53 in one request of a batch (issue 19, item 4)', () => {
  it.each(HASHES.flatMap(([name, algorithm, fields]) => fields.map((field) => [name, field, algorithm] as const)))(
    '%s.%s: the other tenant’s requests in the same script call are decided by Redis; no store error',
    async (_name, field, algorithm) => {
      const { limiter, keyOf, ctx, warnings, storeErrors, breakers } = setup(algorithm);
      expect(await limiter.consume(ctx('victim'))).toMatchObject({ allowed: true, degraded: false });
      await suite.client.hset(keyOf('victim'), field, String(2 ** 53));
      const before = await scriptCalls();
      // One turn of the event loop: one script call for all eleven requests.
      const [victim, ...others] = await Promise.all([
        limiter.consume(ctx('victim')),
        ...Array.from({ length: 10 }, () => limiter.consume(ctx('other'))),
      ]);
      expect(await scriptCalls()).toBe(before + 1);
      expect(others.map((d) => [d.allowed, d.degraded])).toEqual([
        ...Array.from({ length: 5 }, () => [true, false]),
        ...Array.from({ length: 5 }, () => [false, false]),
      ]);
      expect(victim?.degraded).toBe(false);
      expect(Number.isSafeInteger(victim?.resetAt)).toBe(true);
      expect(Number.isSafeInteger(victim?.retryAfter)).toBe(true);
      expect(storeErrors.map((e) => String(e.error))).toEqual([]);
      expect(breakers).toEqual([]);
      expect(warnings.map((w) => w.code).filter((code) => code !== 'WARN_FLOODGATE_KEY_RESET')).toEqual([]);
      // The victim's key is usable again: it has a TTL, and the next call decides without a reset.
      expect(await suite.client.pttl(keyOf('victim'))).toBeGreaterThan(0);
      expect(await limiter.consume(ctx('victim'))).toMatchObject({ degraded: false });
    },
  );
});

describe('a key of the wrong Redis type (issue 19, item 4)', () => {
  it.each(ALL)(
    '%s: peek answers as for a new key, writes nothing, and 5 peeks leave the breaker closed',
    async (_name, algorithm) => {
      const { limiter, keyOf, ctx, warnings, storeErrors, breakers } = setup(algorithm);
      await suite.client.set(keyOf('victim'), 'not our state');
      for (let i = 0; i < 5; i++) {
        expect(await limiter.peek(ctx('victim'))).toMatchObject({ allowed: true, degraded: false, remaining: 4 });
      }
      expect(storeErrors.map((e) => String(e.error))).toEqual([]);
      expect(breakers).toEqual([]);
      expect(warnings.map((w) => w.code)).toEqual(['WARN_FLOODGATE_KEY_RESET']);
      // A peek writes nothing: the foreign value is still there for consume to reset.
      expect(await suite.client.get(keyOf('victim'))).toBe('not our state');
      expect(await limiter.consume(ctx('victim'))).toMatchObject({ allowed: true, degraded: false, remaining: 4 });
    },
  );

  it.each(ALL)('%s: block and unblock reset the key and act on it; no store error', async (_name, algorithm) => {
    const { limiter, keyOf, ctx, storeErrors, breakers } = setup(algorithm);
    await suite.client.set(keyOf('victim'), 'not our state');
    await limiter.block(ctx('victim'), '1m', { rule: 'tenant' });
    expect(await limiter.consume(ctx('victim'))).toMatchObject({ allowed: false, degraded: false });
    await suite.client.del(keyOf('victim'));
    await suite.client.set(keyOf('victim'), 'not our state');
    await limiter.unblock(ctx('victim'), { rule: 'tenant' });
    expect(await limiter.consume(ctx('victim'))).toMatchObject({ allowed: true, degraded: false });
    expect(storeErrors.map((e) => String(e.error))).toEqual([]);
    expect(breakers).toEqual([]);
  });
});
