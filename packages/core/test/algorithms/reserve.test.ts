import { describe, expect, it } from 'vitest';
import { fixedWindow, gcra, leakyBucket, slidingWindow, tokenBucket } from '@floodgate/core';
import type { Algorithm } from '@floodgate/core';

const START = 1_700_000_000_000;

/** Admits `cost`-1 requests at START until the first denial; returns how many got through. */
function admitted(algorithm: Algorithm, critical: boolean, state?: unknown): { count: number; state: unknown } {
  let current = state;
  let count = 0;
  for (let i = 0; i < 1_000; i++) {
    const outcome = algorithm.decide(current, START, 1, `r${i}`, critical);
    if (!outcome.allowed) return { count, state: current };
    current = outcome.state;
    count++;
  }
  throw new Error('never denied');
}

const withReserve: Array<[string, Algorithm, number]> = [
  ['fixedWindow', fixedWindow({ limit: 10, window: '1m', reserve: 0.2 }), 2],
  ['slidingWindow', slidingWindow({ limit: 10, window: '1m', reserve: 2 }), 2],
  ['tokenBucket', tokenBucket({ capacity: 10, refillRate: 0.001, reserve: 0.25 }), 2],
  ['leakyBucket', leakyBucket({ capacity: 10, leakRate: 0.001, reserve: 3 }), 3],
  ['gcra', gcra({ rate: 1, period: '1h', burst: 9, reserve: 0.5 }), 5],
];

describe('the critical reserve (issue 11)', () => {
  it.each(withReserve)(
    '%s: normal requests stop at limit - reserve; critical ones use the rest',
    (_, algorithm, reserve) => {
      expect(algorithm.reserve).toBe(reserve);
      const normal = admitted(algorithm, false);
      expect(normal.count).toBe(10 - reserve);
      const critical = admitted(algorithm, true, normal.state);
      expect(critical.count).toBe(reserve);
      // The full bucket now denies normal requests with a wait, and reports nothing left to them.
      const denied = algorithm.decide(critical.state, START, 1, 'late', false);
      expect(denied).toMatchObject({ allowed: false, remaining: 0 });
      expect(denied.retryAfter).toBeGreaterThan(0);
    },
  );

  it.each(withReserve)('%s: a normal request sees remaining without the reserve', (_, algorithm, reserve) => {
    expect(algorithm.decide(undefined, START, 1, 'a', false).remaining).toBe(10 - reserve - 1);
    expect(algorithm.decide(undefined, START, 1, 'a', true).remaining).toBe(10 - 1);
  });

  it('takes a fraction of the limit (rounded down) or a whole number of units', () => {
    expect(fixedWindow({ limit: 10, window: '1m', reserve: 0.25 }).reserve).toBe(2);
    expect(fixedWindow({ limit: 10, window: '1m', reserve: 4 }).reserve).toBe(4);
    expect(fixedWindow({ limit: 10, window: '1m' }).reserve).toBe(0);
    expect(fixedWindow({ limit: 10, window: '1m', reserve: 0.2 }).options).toEqual({
      limit: 10,
      window: 60_000,
      reserve: 2,
    });
    expect(fixedWindow({ limit: 10, window: '1m' }).options).toEqual({ limit: 10, window: 60_000 });
  });

  it.each([
    [10, 'fixedWindow.reserve must leave normal requests at least one of the 10 units, got 10'],
    [1.5, 'fixedWindow.reserve must be a fraction below 1 or a whole number of units >= 0, got 1.5'],
    [-1, 'fixedWindow.reserve must be a fraction below 1 or a whole number of units >= 0, got -1'],
    [Number.NaN, 'fixedWindow.reserve must be a fraction below 1 or a whole number of units >= 0, got NaN'],
  ])('refuses reserve %s with a message that names it', (reserve, message) => {
    expect(() => fixedWindow({ limit: 10, window: '1m', reserve })).toThrow(message);
  });

  it('refuses a reserve that is not a number', () => {
    expect(() => tokenBucket({ capacity: 10, refillRate: 1, reserve: '2' as unknown as number })).toThrow(
      'tokenBucket.reserve must be a fraction below 1 or a whole number of units, got "2"',
    );
  });

  it('divides the reserve with the quota, always leaving one unit to normal requests', () => {
    expect(fixedWindow({ limit: 10, window: '1m', reserve: 4 }).divide(2).reserve).toBe(2);
    expect(fixedWindow({ limit: 10, window: '1m', reserve: 8 }).divide(5).reserve).toBe(1);
    expect(tokenBucket({ capacity: 4, refillRate: 1, reserve: 3 }).divide(4).reserve).toBe(0);
  });
});
