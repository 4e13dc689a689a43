import { describe, expect, it } from 'vitest';
import { tokenBucket } from '@floodgate/core';
import { compareLongRun } from './long-run';
import { bucketRef } from './reference';
import { forAllBuckets, play, START, traceArb } from './trace';

describe('tokenBucket', () => {
  it('admits at most capacity + refillRate * d units in any interval of length d', () => {
    forAllBuckets((capacity, milliRate, gen) => {
      const algorithm = tokenBucket({ capacity, refillRate: milliRate / 1000 });
      const admitted = play(algorithm, gen(traceArb, algorithm.window, capacity)).filter((s) => s.outcome.allowed);
      for (const [i, first] of admitted.entries()) {
        let units = 0;
        for (const later of admitted.slice(i)) {
          units += later.cost;
          // In millionths of a token: refillRate * d = milliRate * d / 1e6 tokens.
          expect(units * 1_000_000).toBeLessThanOrEqual(capacity * 1_000_000 + milliRate * (later.now - first.now));
        }
      }
    });
  });

  it('keeps exact tokens over one million operations (refillRate 3.7 per second)', () => {
    const run = compareLongRun(tokenBucket({ capacity: 10, refillRate: 3.7 }), bucketRef(10n, 37n, 10n), {
      ops: 1_000_000,
      maxGap: 600,
    });
    expect(run.allowed).toBeGreaterThan(100_000);
    expect(run.denied).toBeGreaterThan(100_000);
  });

  it('keeps exact tokens with a six-decimal rate', () => {
    const run = compareLongRun(
      tokenBucket({ capacity: 3, refillRate: 0.123457 }),
      bucketRef(3n, 123_457n, 1_000_000n),
      {
        ops: 200_000,
        maxGap: 40_000,
      },
    );
    expect(run.denied).toBeGreaterThan(10_000);
  });

  it('starts full, refills continuously and reports the time to refill from empty as its window', () => {
    const algorithm = tokenBucket({ capacity: 4, refillRate: 2 });
    expect(algorithm).toMatchObject({ limit: 4, window: 2000, maxCost: 4, params: [4, 2000, 500, 1, 0] });
    const first = algorithm.decide(undefined, START, 4, 'a');
    expect(first).toMatchObject({ allowed: true, remaining: 0, resetAt: START + 2000 });
    expect(algorithm.decide(first.state, START + 1, 1, 'b')).toMatchObject({ allowed: false, retryAfter: 499 });
    expect(algorithm.decide(first.state, START + 500, 1, 'b')).toMatchObject({ allowed: true, remaining: 0 });
    expect(algorithm.decide(first.state, START + 1000, 1, 'b')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('refunds tokens without exceeding capacity', () => {
    const algorithm = tokenBucket({ capacity: 4, refillRate: 2 });
    const state = algorithm.decide(undefined, START, 3, 'a').state;
    expect(algorithm.refund(state, START + 100, 2, '')).toEqual({ level: 400, at: START + 100 });
    expect(algorithm.refund(state, START + 100, 4, '')).toEqual({ level: 0, at: START + 100 });
  });
});
