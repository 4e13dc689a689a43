import { createLimiter, fixedWindow, tokenBucket } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { describe, expect, it } from 'vitest';
import { contextOf } from '../helpers/context.ts';
import { freshPrefix, limiterKey, storedKey } from './fixtures/client.ts';
import { useRedis } from './fixtures/suite.ts';
import type { Algorithm, Decision, Limiter } from '@floodgate/core';

const suite = useRedis();
const START = Date.UTC(2030, 0, 1);
const ctx = contextOf({ ip: '203.0.113.7' });

/** A leased limiter and a plain one on the same key of one Redis, both on a clock the test moves. */
function setup(algorithm: Algorithm) {
  const time = { now: START };
  const clock = () => time.now;
  const prefix = freshPrefix('lease');
  const store = new RedisStore({ client: suite.client, prefix, clock });
  const costs: number[] = [];
  const consume = store.consume.bind(store);
  store.consume = (calls, id) => {
    costs.push(...calls.map((call) => call.cost));
    return consume(calls, id);
  };
  const rule = { name: 'hot', key: () => 'hot', algorithm };
  const limiter = createLimiter({ store, clock, limits: [{ ...rule, lease: { size: 4, ttl: '10s' } }] });
  const plain = createLimiter({ store, clock, limits: [rule] });
  const key = storedKey(prefix, limiterKey('fg', 'hot', algorithm, 'hot'));
  return {
    time,
    costs,
    limiter,
    plain,
    /** The fixed window's count as Redis holds it (null when the key is gone). */
    count: () => suite.client.hget(key, 'count'),
    /** What is left in Redis itself: a peek of cost 0 sees no pool. */
    storeRemaining: async () => (await plain.peek(ctx, { cost: 0 })).remaining,
  };
}

async function consumeMany(limiter: Limiter, n: number): Promise<Decision[]> {
  const decisions: Decision[] = [];
  for (let i = 0; i < n; i++) decisions.push(await limiter.consume(ctx));
  return decisions;
}

const numbers = (d: Decision) => ({ allowed: d.allowed, remaining: d.remaining, retryAfter: d.retryAfter });

describe('leasing through RedisStore on one node', () => {
  it('fixedWindow: Redis counts the whole lease, and gets the unused units back on close()', async () => {
    const { limiter, count } = setup(fixedWindow({ limit: 10, window: '1m' }));
    expect((await consumeMany(limiter, 2)).map((d) => d.remaining)).toEqual([9, 8]);
    expect(await count()).toBe('4');
    await limiter.close();
    expect(await count()).toBe('2');
  });

  it('tokenBucket: the unused tokens go back to Redis on close()', async () => {
    const { limiter, storeRemaining } = setup(tokenBucket({ capacity: 10, refillRate: 0.000001 }));
    await consumeMany(limiter, 1);
    expect(await storeRemaining()).toBe(6);
    await limiter.close();
    expect(await storeRemaining()).toBe(9);
  });

  it('a lease is refused near the limit; the last units go one request at a time, exactly', async () => {
    const { limiter, costs, count } = setup(fixedWindow({ limit: 10, window: '1m' }));
    const decisions = await consumeMany(limiter, 12);
    expect(decisions.map((d) => d.allowed)).toEqual([...Array(10).fill(true), false, false]);
    expect(decisions[10]?.retryAfter).toBe(60_000);
    // Two leases, one refused, two single units, one denial; the deny cache answers the last.
    expect(costs).toEqual([4, 4, 4, 1, 1, 1]);
    expect(await count()).toBe('10');
  });

  it('tokenBucket with refill: at the tail the leased limiter decides as one without a lease', async () => {
    const algorithm = tokenBucket({ capacity: 10, refillRate: 1 });
    const trace = async (time: { now: number }, limiter: Limiter) => {
      const decisions = await consumeMany(limiter, 12);
      for (let step = 0; step < 4; step++) {
        time.now += 1000;
        decisions.push(...(await consumeMany(limiter, 2)));
      }
      return decisions.map(numbers);
    };
    const leased = setup(algorithm);
    const unleased = setup(algorithm);
    const got = await trace(leased.time, leased.limiter);
    expect(got).toEqual(await trace(unleased.time, unleased.plain));
    expect(got.filter((d) => d.allowed)).toHaveLength(14);
  });

  it('reset drops the pool: the fresh key is leased anew, not credited with the old units', async () => {
    const { limiter, count, costs } = setup(fixedWindow({ limit: 10, window: '1m' }));
    await consumeMany(limiter, 2);
    // The hot key is shared by every client: a control reaches it only when the rule is named.
    await limiter.reset(ctx, { rule: 'hot' });
    expect(await count()).toBeNull();
    const [after] = await consumeMany(limiter, 1);
    expect(after?.remaining).toBe(9);
    expect(costs).toEqual([4, 4]);
    expect(await count()).toBe('4');
  });

  it('block drops the pool: the next request is denied until the block ends', async () => {
    const { time, limiter } = setup(fixedWindow({ limit: 10, window: '1m' }));
    await consumeMany(limiter, 1);
    await limiter.block(ctx, 5000, { rule: 'hot' });
    expect((await consumeMany(limiter, 1))[0]).toMatchObject({ allowed: false, retryAfter: 5000 });
    time.now += 5000;
    expect((await consumeMany(limiter, 1))[0]?.allowed).toBe(true);
  });
});
