import { describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow, MemoryStore } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { ALGORITHM_KINDS, ROOMY } from './fixtures/algorithms.ts';
import { freshPrefix, layerKey } from './fixtures/client.ts';
import { useRedis } from './fixtures/suite.ts';
import { contextOf } from '../helpers/context.ts';

const suite = useRedis();

const ctx = contextOf({ ip: '203.0.113.9' });

const DAY = 86_400_000;

/**
 * Two app instances whose clocks differ by 5 s share one fixed window of a day (40 requests,
 * alternating). The first clock sits 2.5 s before a day boundary, so the second is past it.
 */
async function admittedBySkewedPair(storeClock: 'server' | 'client') {
  const prefix = freshPrefix('skew');
  const realStart = Date.now();
  const base = realStart - (realStart % DAY) + DAY - 2500;
  const appClocks = [() => base + (Date.now() - realStart), () => base + 5000 + (Date.now() - realStart)];
  const limits = [{ name: 'ip', key: () => 'shared', algorithm: fixedWindow({ limit: 10, window: '1d' }) }];
  const limiters = appClocks.map((clock) =>
    createLimiter({
      prefix: 'fg',
      clock,
      store: new RedisStore({ client: suite.client, prefix, clock: storeClock === 'server' ? 'server' : clock }),
      limits,
    }),
  );
  let admitted = 0;
  for (let i = 0; i < 40; i++) {
    const decision = await (limiters[i % 2] as (typeof limiters)[0]).consume(ctx);
    if (decision.allowed) admitted += 1;
  }
  return admitted;
}

describe('server clock (default)', () => {
  it('two instances whose clocks differ by 5 s share one limit exactly', async () => {
    expect(await admittedBySkewedPair('server')).toBe(10);
    // The control: on their own clocks the first request counts in a window the other instance has
    // already left behind, so the pair admits more than the limit.
    expect(await admittedBySkewedPair('client')).toBeGreaterThan(10);
  });

  it('reports resetAt in this process clock', async () => {
    const store = new RedisStore({ client: suite.client, prefix: freshPrefix('reset-at') });
    const memory = new MemoryStore();
    const call = { key: layerKey('ip', 'r'), algorithm: fixedWindow({ limit: 3, window: '1h' }), cost: 1 };
    const [fromRedis] = await store.consume([call], 'a');
    const [fromMemory] = await memory.consume([call], 'a');
    // Same machine, same clock: the shifted server resetAt equals the local one within a few ms.
    expect(Math.abs((fromRedis?.resetAt ?? 0) - (fromMemory?.resetAt ?? 0))).toBeLessThan(50);
  });
});

describe('client clock that goes backwards', () => {
  it.each(ALGORITHM_KINDS)('%s never overfills and never owes more than it did', async (kind) => {
    let now = 1_800_000_000_000;
    const store = new RedisStore({ client: suite.client, prefix: freshPrefix(`backwards-${kind}`), clock: () => now });
    const call = { key: layerKey('ip', 'b'), algorithm: ROOMY[kind](), cost: 1 };
    const limit = call.algorithm.limit;

    // Fresh key, then 10 s back: still exactly full, never more.
    expect((await store.consume([{ ...call, cost: 0 }], 'probe'))[0]?.remaining).toBe(limit);
    now -= 10_000;
    expect((await store.consume([{ ...call, cost: 0 }], 'probe'))[0]?.remaining).toBe(limit);
    now += 10_000;

    let i = 0;
    for (; i < limit; i++) expect((await store.consume([call], `r${i}`))[0]?.allowed).toBe(true);
    const denied = (await store.consume([call], 'late'))[0];
    expect(denied).toMatchObject({ allowed: false, remaining: 0 });
    const wait = denied?.retryAfter ?? 0;
    expect(wait).toBeGreaterThan(0);

    for (const back of [1, 1000, 60_000]) {
      now -= back;
      const outcome = (await store.consume([call], `back-${back}`))[0];
      expect(outcome?.allowed).toBe(false);
      expect(outcome?.remaining).toBe(0);
      now += back;
    }
    // Going back admitted nothing and changed nothing: the same wait still applies, to the ms.
    now += wait - 1;
    expect((await store.consume([call], 'early'))[0]?.allowed).toBe(false);
    now += 1;
    expect((await store.consume([call], 'on-time'))[0]?.allowed).toBe(true);
  });
});
