import { describe, expect, it } from 'vitest';
import { leakyBucket } from '@floodgate/core';
import { compareLongRun } from './long-run';
import { bucketRef } from './reference';
import { forAllBuckets, play, START, traceArb } from './trace';

/**
 * Replays the admitted requests into a queue that leaks `milliRate / 1000` requests per second, in
 * millionths of a request: the level each one found and the level it left.
 */
function queueLevels(admitted: readonly { now: number; cost: number }[], milliRate: number) {
  let level = 0;
  let at = START;
  return admitted.map(({ now, cost }) => {
    level = Math.max(0, level - (now - at) * milliRate);
    at = now;
    const found = level;
    level += cost * 1_000_000;
    return { found, left: level };
  });
}

describe('leakyBucket', () => {
  it('policing: the queue never holds more than capacity', () => {
    forAllBuckets((capacity, milliRate, gen) => {
      const algorithm = leakyBucket({ capacity, leakRate: milliRate / 1000 });
      const admitted = play(algorithm, gen(traceArb, algorithm.window, capacity)).filter((s) => s.outcome.allowed);
      for (const { left } of queueLevels(admitted, milliRate)) expect(left).toBeLessThanOrEqual(capacity * 1_000_000);
    });
  });

  it('shaping: admits like policing, each with the time the requests ahead take to leak out', () => {
    forAllBuckets((capacity, milliRate, gen) => {
      const shaping = leakyBucket({ capacity, leakRate: milliRate / 1000, mode: 'shaping' });
      const policing = leakyBucket({ capacity, leakRate: milliRate / 1000 });
      const steps = gen(traceArb, shaping.window, capacity);
      const shaped = play(shaping, steps);
      expect(shaped.map((s) => s.outcome.allowed)).toEqual(play(policing, steps).map((s) => s.outcome.allowed));
      const admitted = shaped.filter((s) => s.outcome.allowed);
      queueLevels(admitted, milliRate).forEach(({ found }, i) => {
        expect(admitted[i]?.outcome.delay).toBe(Math.ceil(found / milliRate));
      });
    });
  });

  it('queues a burst in shaping mode: delays 0, 500, 1000, then denies', () => {
    const algorithm = leakyBucket({ capacity: 3, leakRate: 2, mode: 'shaping' });
    let state = algorithm.decide(undefined, START, 1, 'a').state;
    const delays = [0];
    for (const id of ['b', 'c']) {
      const outcome = algorithm.decide(state, START, 1, id);
      delays.push(outcome.delay);
      state = outcome.state;
    }
    expect(delays).toEqual([0, 500, 1000]);
    expect(algorithm.decide(state, START, 1, 'd')).toMatchObject({ allowed: false, delay: 0, retryAfter: 500 });
  });

  it('keeps an exact level over one million operations', () => {
    const run = compareLongRun(leakyBucket({ capacity: 6, leakRate: 2.25 }), bucketRef(6n, 9n, 4n), {
      ops: 1_000_000,
      maxGap: 800,
    });
    expect(run.allowed).toBeGreaterThan(100_000);
    expect(run.denied).toBeGreaterThan(100_000);
  });

  it('sends its mode to the Lua twin as a flag', () => {
    expect(leakyBucket({ capacity: 2, leakRate: 1 }).params).toEqual([2, 2000, 1000, 1, 0, 0]);
    expect(leakyBucket({ capacity: 2, leakRate: 1, mode: 'shaping' }).params).toEqual([2, 2000, 1000, 1, 1, 0]);
  });
});
