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
import { describe, expect, it } from 'vitest';
import { freshPrefix, limiterKey, storedKey } from './fixtures/client.ts';
import { useRedis } from './fixtures/suite.ts';
import type { Algorithm, FloodgateWarning, StoreErrorEvent } from '@floodgate/core';
import { contextOf } from '../helpers/context.ts';

const suite = useRedis();

/**
 * Issue 9, item 5: one bad key is that key's problem. A key of another type, or a hash field no
 * algorithm writes (nan, inf, 1e300, a negative or text), is reset and decided as new, reported
 * once; it is never a store failure that feeds the breaker and degrades every other key.
 */
const ALGORITHMS: [string, Algorithm, string[]][] = [
  ['fixedWindow', fixedWindow({ limit: 3, window: '1m' }), ['start', 'count']],
  ['slidingWindow', slidingWindow({ limit: 3, window: '1m' }), ['start', 'curr', 'prev']],
  ['slidingLog', slidingLog({ limit: 3, window: '1m' }), []],
  ['tokenBucket', tokenBucket({ capacity: 3, refillRate: 1 }), ['level', 'at']],
  ['leakyBucket', leakyBucket({ capacity: 3, leakRate: 1 }), ['level', 'at']],
  ['gcra', gcra({ rate: 3, period: '1m', burst: 2 }), ['level', 'at']],
  ['concurrency', concurrency({ max: 3 }), []],
];

/**
 * A frozen clock for the limiter and the store: the limit of 3 below is counted over several calls,
 * and on Redis' own clock a fixed window would start again at a minute's end (a token a second
 * would come back).
 */
const T0 = Date.UTC(2026, 0, 1);
const clock = () => T0;

function setup(algorithm: Algorithm) {
  const prefix = freshPrefix('foreign');
  const storeWarnings: FloodgateWarning[] = [];
  const storeErrors: StoreErrorEvent[] = [];
  const breakers: string[] = [];
  const limiter = createLimiter({
    store: new RedisStore({ client: suite.client, prefix, clock, onWarning: (w) => storeWarnings.push(w) }),
    clock,
    failMode: 'closed',
    breaker: { failureThreshold: 2 },
    denyCache: false,
    onStoreError: (event) => storeErrors.push(event),
    onBreakerChange: (change) => breakers.push(change.to),
    limits: [{ name: 'ip', key: (ctx) => ctx.ip, algorithm }],
  });
  const keyOf = (ip: string) => storedKey(prefix, limiterKey('fg', 'ip', algorithm, ip));
  const consume = (ip: string) => limiter.consume(contextOf({ ip }));
  return { limiter, keyOf, consume, storeWarnings, storeErrors, breakers };
}

describe('a key holding what no algorithm writes', () => {
  it.each(ALGORITHMS)('%s: a key of another type is reset and decided as new', async (_name, algorithm) => {
    const { keyOf, consume, storeWarnings, storeErrors, breakers } = setup(algorithm);
    await suite.client.set(keyOf('victim'), 'not our state');
    for (let i = 0; i < 3; i++) {
      expect(await consume('victim')).toMatchObject({ allowed: true, degraded: false });
      expect(await consume('bystander')).toMatchObject({ allowed: true, degraded: false });
    }
    expect(await consume('victim')).toMatchObject({ allowed: false, degraded: false });
    expect(storeErrors).toEqual([]);
    expect(breakers).toEqual([]);
    expect(storeWarnings.map((w) => w.code)).toEqual(['WARN_FLOODGATE_KEY_RESET']);
    expect(await suite.client.pttl(keyOf('victim'))).toBeGreaterThan(0);
  });

  const hashAlgorithms = ALGORITHMS.filter(([, , fields]) => fields.length > 0);
  it.each(
    hashAlgorithms.flatMap(([name, algorithm, fields]) =>
      ['nan', 'inf', '-inf', '1e300', '-5', '1.5', 'abc'].map(
        (value) => [name, value, algorithm, fields] as [string, string, Algorithm, string[]],
      ),
    ),
  )('%s: a field holding %s is reset, and the key gets a TTL again', async (_name, value, algorithm, fields) => {
    const { keyOf, consume, storeWarnings, storeErrors } = setup(algorithm);
    // Without a TTL: a key that denied forever and never expired was the failure reported.
    await suite.client.hset(keyOf('victim'), fields[0] as string, String(T0), fields[1] as string, value);
    expect(await consume('victim')).toMatchObject({ allowed: true, degraded: false, remaining: 2 });
    expect(await suite.client.pttl(keyOf('victim'))).toBeGreaterThan(0);
    expect(storeErrors).toEqual([]);
    expect(storeWarnings.map((w) => w.code)).toEqual(['WARN_FLOODGATE_KEY_RESET']);
  });
});

describe('limiters that share a Redis, a prefix and a rule name but not the algorithm (issue 9, item 5)', () => {
  it('never collide: each keeps its own state, no WRONGTYPE, no breaker, no 503 for anyone', async () => {
    const prefix = freshPrefix('shared');
    const errors: StoreErrorEvent[] = [];
    const make = (algorithm: Algorithm) =>
      createLimiter({
        store: new RedisStore({ client: suite.client, prefix }),
        failMode: 'closed',
        breaker: { failureThreshold: 1 },
        onStoreError: (event) => errors.push(event),
        limits: [{ name: 'ip', key: (ctx) => ctx.ip, algorithm }],
      });
    // The short form (slidingWindow) and layered({ ip: slidingLog(...) }) under the default prefix.
    const window = make(slidingWindow({ limit: 2, window: '1m' }));
    const log = make(slidingLog({ limit: 5, window: '1m' }));
    const ctx = contextOf({ ip: '203.0.113.9' });
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push(await window.consume(ctx), await log.consume(ctx));
    expect(decisions.map((d) => [d.allowed, d.degraded, d.unavailable ?? false])).toEqual([
      [true, false, false],
      [true, false, false],
      [true, false, false],
      [true, false, false],
      [false, false, false],
      [true, false, false],
    ]);
    expect(errors).toEqual([]);
  });
});
