import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gcra } from '@floodgate/core';
import { compareLongRun } from './long-run';
import { gcraRef } from './reference';
import { START, traceArb } from './trace';

describe('gcra', () => {
  it('decides exactly like virtual scheduling with a TAT on random traces', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 0, max: 6 }),
        fc.gen(),
        (rate, period, burst, gen) => {
          const algorithm = gcra({ rate, period, burst });
          const reference = gcraRef(BigInt(rate), BigInt(period), BigInt(burst));
          let state = undefined as Parameters<typeof algorithm.decide>[0];
          let now = START;
          for (const step of gen(traceArb, algorithm.window, burst + 1)) {
            now += step.gap;
            const outcome = algorithm.decide(state, now, step.cost, 'r');
            const expected = reference.decide(BigInt(now), BigInt(step.cost), 'r');
            const resetAt = Math.max(now, Number(reference.resetAt()));
            expect([outcome.allowed, outcome.remaining, outcome.retryAfter, outcome.resetAt]).toEqual([
              expected.allowed,
              Number(expected.remaining),
              Number(expected.retryAfter()),
              resetAt,
            ]);
            if (outcome.allowed) state = outcome.state;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('agrees with the reference over one million operations', () => {
    const run = compareLongRun(gcra({ rate: 7, period: 3000, burst: 3 }), gcraRef(7n, 3000n, 3n), {
      ops: 1_000_000,
      maxGap: 1500,
    });
    expect(run.allowed).toBeGreaterThan(100_000);
    expect(run.denied).toBeGreaterThan(100_000);
  });

  it("reads like redis-cell's CL.THROTTLE user 15 30 60: 16 at once, then one every 2 s", () => {
    const algorithm = gcra({ rate: 30, period: '60s', burst: 15 });
    expect(algorithm).toMatchObject({ limit: 16, window: 32_000, maxCost: 16 });
    let state = algorithm.decide(undefined, START, 1, 'a').state;
    expect(algorithm.decide(undefined, START, 1, 'a')).toMatchObject({
      allowed: true,
      remaining: 15,
      resetAt: START + 2000,
    });
    for (let i = 1; i < 16; i++) state = algorithm.decide(state, START, 1, 'a').state;
    expect(algorithm.decide(state, START, 1, 'a')).toMatchObject({ allowed: false, remaining: 0, retryAfter: 2000 });
    expect(algorithm.decide(state, START + 2000, 1, 'a')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('admits exactly one at a time with burst 0', () => {
    const algorithm = gcra({ rate: 1, period: 1000, burst: 0 });
    const state = algorithm.decide(undefined, START, 1, 'a').state;
    expect(algorithm.decide(state, START + 999, 1, 'b')).toMatchObject({ allowed: false, retryAfter: 1 });
    expect(algorithm.decide(state, START + 1000, 1, 'b').allowed).toBe(true);
  });
});
