import { describe, expect, it } from 'vitest';
import { concurrency, fixedWindow, gcra, leakyBucket, slidingLog, slidingWindow, tokenBucket } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { freshPrefix, keysUnder, layerKey } from './fixtures/client.ts';
import { useRedis } from './fixtures/suite.ts';
import { runSeed, seededRandom } from './fixtures/random.ts';
import type { Algorithm } from '@floodgate/core';
import type { LayerCall } from '@floodgate/core/store';

const suite = useRedis();

/** Short durations, so that every key's TTL runs out within the test. */
const RULES: Record<string, Algorithm> = {
  fw: fixedWindow({ limit: 4, window: 700 }),
  log: slidingLog({ limit: 4, window: 600 }),
  sw: slidingWindow({ limit: 4, window: 500 }),
  tb: tokenBucket({ capacity: 4, refillRate: 10 }),
  lb: leakyBucket({ capacity: 4, leakRate: 10, mode: 'shaping' }),
  gcra: gcra({ rate: 5, period: 800, burst: 3 }),
  conc: concurrency({ max: 3, lease: 900 }),
};

/** Polls `condition` until it holds or `boundMs` passes; returns whether it held. */
async function eventually(condition: () => Promise<boolean>, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return condition();
}

describe('TTL of every key', () => {
  it('after a mixed workload every key has a TTL, and once the longest passes no key is left', async () => {
    const random = seededRandom(runSeed());
    const prefix = freshPrefix('ttl');
    const store = new RedisStore({ client: suite.client, prefix });
    const names = Object.keys(RULES);
    const call = (name: string, identity: string, cost: number): LayerCall => ({
      key: layerKey(name, identity),
      algorithm: RULES[name] as Algorithm,
      cost,
    });
    for (let i = 0; i < 600; i++) {
      const identity = `id${random.int(0, 3)}`;
      const layers = [random.pick(names), random.pick(names)].filter((name, index, all) => all.indexOf(name) === index);
      const calls = layers.map((name) => call(name, identity, random.int(0, 2)));
      const id = `r${i}`;
      if (random.chance(0.2)) await store.refund(calls, random.chance(0.5) ? id : `r${i - 1}`);
      else await store.consume(calls, id);
    }

    const keys = await keysUnder(suite.client, prefix);
    expect(keys.length).toBeGreaterThan(names.length);
    const ttls = await Promise.all(keys.map((key) => suite.client.pttl(key)));
    // PTTL is -1 for a key without a TTL. A key that expired between SCAN and PTTL (-2) had one.
    expect(keys.filter((_, index) => ttls[index] === -1)).toEqual([]);
    const longest = Math.max(...ttls);
    expect(longest).toBeLessThanOrEqual(1000);
    expect(await eventually(async () => (await keysUnder(suite.client, prefix)).length === 0, longest + 2000)).toBe(
      true,
    );
  });
});
