import fc from 'fast-check';
import { createLimiter, fixedWindow, gcra, leakyBucket, slidingLog, slidingWindow, tokenBucket } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { describe, expect, it } from 'vitest';
import { freshPrefix } from './fixtures/client.ts';
import { useRedis } from './fixtures/suite.ts';
import type { Algorithm, Decision } from '@floodgate/core';

const suite = useRedis();

/**
 * Issue 9, item 11: a denial the local deny cache answers must carry the numbers the store gives.
 * Two limiters see the same random trace on the same Redis (each under its own prefix, one clock):
 * one with the deny cache, one without. Every decision must agree; the cached limiter must also
 * have answered some of them alone (or the comparison would prove nothing).
 */
const ALGORITHMS: [string, Algorithm][] = [
  ['fixedWindow', fixedWindow({ limit: 5, window: 1000 })],
  ['slidingWindow', slidingWindow({ limit: 5, window: 1000 })],
  ['slidingLog', slidingLog({ limit: 5, window: 1000 })],
  ['tokenBucket', tokenBucket({ capacity: 5, refillRate: 4 })],
  ['leakyBucket', leakyBucket({ capacity: 5, leakRate: 4 })],
  ['gcra', gcra({ rate: 100, period: '1m', burst: 20 })],
];

const step = fc.record({
  client: fc.constantFrom('a', 'b'),
  cost: fc.oneof(fc.constant(1), fc.integer({ min: 0, max: 4 })),
  wait: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 })),
});

function numbers(decision: Decision) {
  return {
    allowed: decision.allowed,
    remaining: decision.remaining,
    retryAfter: decision.retryAfter,
    resetAt: decision.resetAt,
  };
}

describe('answers from the deny cache are the store’s answers', () => {
  it.each(ALGORITHMS)('%s: on random traces, with and without the deny cache alike', async (_name, algorithm) => {
    let cachedAnswers = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 20, maxLength: 60 }), async (steps) => {
        let now = Date.UTC(2030, 0, 1);
        const clock = () => now;
        const limiterWith = (denyCache: boolean) => {
          const store = new RedisStore({
            client: suite.client,
            clock,
            prefix: freshPrefix(denyCache ? 'cached' : 'truth'),
          });
          const limiter = createLimiter({
            store,
            clock,
            denyCache,
            // The property is about answers, not speed: a busy machine must not turn a slow call into a
            // fallback decision that differs from the store's.
            timeout: 10_000,
            limits: [{ name: 'k', key: (ctx) => ctx.header('x-client'), algorithm }],
          });
          return { limiter, store };
        };
        const cached = limiterWith(true);
        const truth = limiterWith(false);
        const sent = { count: 0 };
        const consume = cached.store.consume.bind(cached.store);
        cached.store.consume = (calls, id) => {
          sent.count++;
          return consume(calls, id);
        };
        for (const { client, cost, wait } of steps) {
          now += wait;
          const ctx = { ip: undefined, header: () => client, req: {} };
          const before = sent.count;
          const [withCache, withoutCache] = [
            await cached.limiter.consume(ctx, { cost }),
            await truth.limiter.consume(ctx, { cost }),
          ];
          if (sent.count === before) cachedAnswers++;
          expect(numbers(withCache)).toEqual(numbers(withoutCache));
        }
      }),
      { numRuns: 25 },
    );
    expect(cachedAnswers).toBeGreaterThan(0);
  });
});
