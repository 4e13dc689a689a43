import fc from 'fast-check';
import { describe, it } from 'vitest';
import { concurrency, fixedWindow, gcra, leakyBucket, slidingLog, slidingWindow, tokenBucket } from '@floodgate/core';
import type { Algorithm } from '@floodgate/core';
import { checkRules, traceArb } from './trace';

// Small quotas so that traces hit denials often; fractional rates and a backwards clock included.
const algorithms: [string, Algorithm<unknown>][] = [
  ['fixedWindow', fixedWindow({ limit: 5, window: 1000 })],
  ['slidingLog', slidingLog({ limit: 5, window: 1000 })],
  ['slidingWindow', slidingWindow({ limit: 5, window: 1000 })],
  ['slidingWindow (odd window)', slidingWindow({ limit: 7, window: 997 })],
  ['tokenBucket', tokenBucket({ capacity: 5, refillRate: 3.3 })],
  ['leakyBucket policing', leakyBucket({ capacity: 4, leakRate: 0.75 })],
  ['leakyBucket shaping', leakyBucket({ capacity: 4, leakRate: 2, mode: 'shaping' })],
  ['gcra', gcra({ rate: 3, period: 1000, burst: 2 })],
  ['gcra (burst 0)', gcra({ rate: 7, period: '1s', burst: 0 })],
  ['concurrency', concurrency({ max: 4, lease: 800 })],
] as [string, Algorithm<unknown>][];

describe.each(algorithms)('%s keeps the rules', (_, algorithm) => {
  it('never mutates state, hands back the same state when denied, and retryAfter is exact', () => {
    fc.assert(
      fc.property(traceArb(algorithm.window, algorithm.maxCost, true), (steps) => checkRules(algorithm, steps)),
      { numRuns: 150 },
    );
  });
});
