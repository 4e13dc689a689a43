import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { slidingWindow } from '@floodgate/core';
import { compareLongRun } from './long-run';
import { slidingWindowRef } from './reference';
import { play, traceArb } from './trace';

/** The bound proved in the README: units admitted within any span of `span` ms (1 <= span <= window). */
const bound = (limit: number, window: number, span: number) =>
  limit + Math.max(0, Math.floor((limit * (span - 2)) / window));

describe('slidingWindow', () => {
  it('admits at most limit + floor(limit * (d - 2) / window) units in any span of d <= window ms', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 2, max: 2000 }), fc.gen(), (limit, window, gen) => {
        const admitted = play(slidingWindow({ limit, window }), gen(traceArb, window, limit)).filter(
          (s) => s.outcome.allowed,
        );
        for (const [i, first] of admitted.entries()) {
          let units = 0;
          for (const later of admitted.slice(i)) {
            const span = later.now - first.now + 1;
            if (span > window) break;
            units += later.cost;
            expect(units).toBeLessThanOrEqual(bound(limit, window, span));
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reaches the bound: 2 * limit - ceil(2 * limit / window) in one window-length span, never 2 * limit', () => {
    const [limit, window] = [100, 60_000];
    const algorithm = slidingWindow({ limit, window });
    let state = algorithm.decide(undefined, window - 1, limit, 'burst').state;
    let admitted = limit;
    // Then greedily, one unit at a time, every millisecond of the span [window - 1, 2 * window - 2].
    for (let now = window; now <= 2 * window - 2; now++) {
      for (;;) {
        const outcome = algorithm.decide(state, now, 1, 'x');
        if (!outcome.allowed) break;
        state = outcome.state;
        admitted++;
      }
    }
    expect(admitted).toBe(bound(limit, window, window));
    expect(admitted).toBe(2 * limit - Math.ceil((2 * limit) / window));
    expect(admitted).toBe(199);
  });

  it('agrees with the exact fractional estimate over one million operations', () => {
    const run = compareLongRun(slidingWindow({ limit: 10, window: 997 }), slidingWindowRef(10n, 997n), {
      ops: 1_000_000,
      maxGap: 500,
    });
    expect(run.allowed).toBeGreaterThan(100_000);
    expect(run.denied).toBeGreaterThan(100_000);
  });

  it('rolls the current count into prev after exactly one window, and forgets both after two', () => {
    const algorithm = slidingWindow({ limit: 10, window: 1000 });
    const state = algorithm.decide(undefined, 5_500, 4, 'a').state;
    expect(state).toEqual({ start: 5_000, curr: 4, prev: 0 });
    expect(algorithm.decide(state, 6_250, 1, 'b').state).toEqual({ start: 6_000, curr: 1, prev: 4 });
    expect(algorithm.decide(state, 6_250, 1, 'b').remaining).toBe(6);
    expect(algorithm.decide(state, 7_000, 1, 'b').state).toEqual({ start: 7_000, curr: 1, prev: 0 });
    // A clock that went backwards stays in the stored window.
    expect(algorithm.decide(state, 4_900, 1, 'b').state).toEqual({ start: 5_000, curr: 5, prev: 0 });
  });

  it('finds the wait in the next window, where the current count becomes prev', () => {
    const algorithm = slidingWindow({ limit: 10, window: 1000 });
    const state = algorithm.decide(undefined, 1_000, 10, 'a').state;
    const denied = algorithm.decide(state, 1_500, 4, 'b');
    // At 2000 + e the estimate is 10 * (1000 - e) / 1000 + 4 <= 10 first at e = 400.
    expect(denied).toMatchObject({ allowed: false, retryAfter: 900, resetAt: 3_000 });
    expect(algorithm.decide(state, 2_399, 4, 'b').allowed).toBe(false);
    expect(algorithm.decide(state, 2_400, 4, 'b').allowed).toBe(true);
  });

  it('rejects a limit and window whose product cannot be computed exactly', () => {
    expect(() => slidingWindow({ limit: 2 ** 30, window: 2 ** 23 })).toThrow(
      'slidingWindow: limit * window * 2 must stay below 2^53 to be computed exactly, got limit 1073741824 and window 8388608 ms',
    );
    expect(slidingWindow({ limit: 2 ** 29, window: 2 ** 22 }).limit).toBe(2 ** 29);
  });
});
