import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixedWindow } from '@floodgate/core';
import { compareLongRun } from './long-run';
import { fixedWindowRef } from './reference';
import { play, traceArb } from './trace';

describe('fixedWindow', () => {
  it('never admits more than limit units per aligned window', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 3000 }), fc.gen(), (limit, window, gen) => {
        const algorithm = fixedWindow({ limit, window });
        const perWindow = new Map<number, number>();
        for (const step of play(algorithm, gen(traceArb, window, limit))) {
          if (!step.outcome.allowed) continue;
          const index = Math.floor(step.now / window);
          perWindow.set(index, (perWindow.get(index) ?? 0) + step.cost);
          expect(perWindow.get(index)).toBeLessThanOrEqual(limit);
        }
      }),
    );
  });

  it('counts exactly over one million operations', () => {
    const run = compareLongRun(fixedWindow({ limit: 9, window: 1000 }), fixedWindowRef(9n, 1000n), {
      ops: 1_000_000,
      maxGap: 400,
    });
    expect(run.allowed).toBeGreaterThan(100_000);
    expect(run.denied).toBeGreaterThan(100_000);
  });

  it('gives back refunded units within the same window only', () => {
    const algorithm = fixedWindow({ limit: 3, window: 1000 });
    const state = algorithm.decide(undefined, 10_000, 3, 'a').state;
    expect(algorithm.refund(state, 10_500, 2, '')).toEqual({ start: 10_000, count: 1 });
    expect(algorithm.refund(state, 11_000, 2, '')).toBe(state);
  });
});
