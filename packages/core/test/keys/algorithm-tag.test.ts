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
  type DecisionEvent,
  type LimitRule,
} from '@floodgate/core';
import { contextOf } from '../keys/context';

/** The keys a limiter of `algorithm` writes for client `a` under rule `ip`, prefix `fg`. */
async function keyOf(algorithm: LimitRule['algorithm']): Promise<string> {
  const keys: string[] = [];
  const limiter = createLimiter({
    limits: [{ name: 'ip', key: () => 'a', algorithm }],
    onDecision: (event: DecisionEvent) => keys.push(...event.keys),
  });
  await limiter.consume(contextOf({ ip: 'a' }));
  return keys[0] as string;
}

describe('keys name the algorithm and its options (issue 9, item 5)', () => {
  it('gives every algorithm, and every configuration of one, its own keys under the same prefix and rule', async () => {
    const keys = await Promise.all(
      [
        fixedWindow({ limit: 10, window: '1m' }),
        fixedWindow({ limit: 10, window: '1s' }),
        fixedWindow({ limit: 11, window: '1m' }),
        slidingWindow({ limit: 10, window: '1m' }),
        slidingLog({ limit: 10, window: '1m' }),
        tokenBucket({ capacity: 10, refillRate: 1 }),
        leakyBucket({ capacity: 10, leakRate: 1 }),
        gcra({ rate: 10, period: '1m', burst: 0 }),
        concurrency({ max: 10 }),
      ].map(keyOf),
    );
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(/^fg:ip:(fw|sw|sl|tb|lb|gc|cc)\.[0-9a-z]+:\{a\}$/);
  });

  it('is the same for the same options, whichever object or process made them', async () => {
    expect(await keyOf(fixedWindow({ limit: 10, window: '1m' }))).toBe(
      await keyOf(fixedWindow({ limit: 10, window: 60_000 })),
    );
    // Stable across versions and processes: every instance of an app must derive the same key.
    expect(await keyOf(fixedWindow({ limit: 100, window: '1m' }))).toBe('fg:ip:fw.590ab6:{a}');
  });

  it('leaves the critical reserve out: limiters that differ only in it share their counters', async () => {
    expect(await keyOf(fixedWindow({ limit: 100, window: '1m', reserve: 0.2 }))).toBe('fg:ip:fw.590ab6:{a}');
    expect(await keyOf(tokenBucket({ capacity: 10, refillRate: 1, reserve: 3 }))).toBe(
      await keyOf(tokenBucket({ capacity: 10, refillRate: 1 })),
    );
  });
});
