import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { slidingLog } from '@floodgate/core';
import { compareLongRun } from './long-run';
import { slidingLogRef } from './reference';
import { play, START, traceArb } from './trace';

describe('slidingLog', () => {
  it('never admits more than limit units in any interval of length window', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 3000 }), fc.gen(), (limit, window, gen) => {
        const admitted = play(slidingLog({ limit, window }), gen(traceArb, window, limit)).filter(
          (s) => s.outcome.allowed,
        );
        // The busiest interval of length window ends at some admission t: it is (t - window, t].
        for (const last of admitted) {
          const inside = admitted.filter((s) => s.now > last.now - window && s.now <= last.now);
          expect(inside.reduce((sum, s) => sum + s.cost, 0)).toBeLessThanOrEqual(limit);
        }
      }),
    );
  });

  it('matches a plain log of timestamps over one million operations', () => {
    const run = compareLongRun(slidingLog({ limit: 12, window: 1000 }), slidingLogRef(12n, 1000n), {
      ops: 1_000_000,
      maxGap: 400,
    });
    expect(run.allowed).toBeGreaterThan(100_000);
    expect(run.denied).toBeGreaterThan(100_000);
  });

  it('waits for the (count + cost - limit)-th oldest entry to leave', () => {
    const algorithm = slidingLog({ limit: 3, window: 1000 });
    let state = algorithm.decide(undefined, START, 1, 'a').state;
    state = algorithm.decide(state, START + 100, 1, 'b').state;
    state = algorithm.decide(state, START + 200, 1, 'c').state;
    const denied = algorithm.decide(state, START + 300, 2, 'd');
    expect(denied).toMatchObject({ allowed: false, remaining: 0, retryAfter: 800, resetAt: START + 1200 });
    expect(algorithm.decide(state, START + 1099, 2, 'd').allowed).toBe(false);
    expect(algorithm.decide(state, START + 1100, 2, 'd')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('refunds the newest entries', () => {
    const algorithm = slidingLog({ limit: 5, window: 1000 });
    const state = algorithm.decide(algorithm.decide(undefined, START, 2, 'a').state, START + 10, 2, 'b').state;
    expect(algorithm.refund(state, START + 20, 3, '')).toEqual([START]);
    expect(algorithm.refund(state, START + 20, 0, '')).toEqual([START, START, START + 10, START + 10]);
  });
});
