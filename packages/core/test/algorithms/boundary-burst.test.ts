import { describe, expect, it } from 'vitest';
import { fixedWindow, slidingLog, slidingWindow } from '@floodgate/core';
import type { Algorithm } from '@floodgate/core';

/** 100 requests at 59.9 s and 100 more at 60.1 s, with a quota of 100 per minute. */
function boundaryBurst(algorithm: Algorithm<unknown>): { first: number; second: number } {
  let state: unknown;
  const admittedAt = (now: number) => {
    let admitted = 0;
    for (let i = 0; i < 100; i++) {
      const outcome = algorithm.decide(state, now, 1, `${now}-${i}`);
      if (outcome.allowed) [state, admitted] = [outcome.state, admitted + 1];
    }
    return admitted;
  };
  return { first: admittedAt(59_900), second: admittedAt(60_100) };
}

describe('the boundary burst (100 per minute; 100 requests at 59.9 s, 100 at 60.1 s)', () => {
  it('passes all 200 under fixedWindow', () => {
    expect(boundaryBurst(fixedWindow({ limit: 100, window: '1m' }))).toEqual({ first: 100, second: 100 });
  });

  it('passes only the first 100 under slidingLog', () => {
    expect(boundaryBurst(slidingLog({ limit: 100, window: '1m' }))).toEqual({ first: 100, second: 0 });
  });

  it('passes 100 under slidingWindow: the second burst gets floor(100 * 100 / 60000) = 0', () => {
    // README bound: a full window at its end, then b ms into the next, admits at most floor(limit * b / window).
    expect(boundaryBurst(slidingWindow({ limit: 100, window: '1m' }))).toEqual({ first: 100, second: 0 });
  });

  it('lets slidingWindow admit floor(limit * b / window) of a second burst b ms into the next window', () => {
    for (const b of [100, 600, 6_000, 30_000, 59_999]) {
      let state = slidingWindow({ limit: 100, window: '1m' }).decide(undefined, 59_999, 100, 'first').state;
      const algorithm = slidingWindow({ limit: 100, window: '1m' });
      let second = 0;
      for (let i = 0; i < 100; i++) {
        const outcome = algorithm.decide(state, 60_000 + b, 1, `s${i}`);
        if (outcome.allowed) [state, second] = [outcome.state, second + 1];
      }
      expect(second).toBe(Math.floor((100 * b) / 60_000));
    }
  });
});
