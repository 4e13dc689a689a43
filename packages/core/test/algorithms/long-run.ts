import type { Algorithm } from '@floodgate/core';
import type { Reference } from './reference';
import { START } from './trace';

export interface LongRun {
  allowed: number;
  denied: number;
  released: number;
}

/** xorshift32: the same pseudo-random trace on every run. */
function generator(seed: number): (n: number) => number {
  let x = seed | 0 || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

/**
 * Drives `algorithm` and a BigInt `reference` through the same long trace (gaps up to `maxGap` ms)
 * and throws at the first step where they disagree on allowed, remaining or (every 7th denial)
 * retryAfter. With `releases`, one request in 8 instead releases an earlier admitted one.
 */
export function compareLongRun<S>(
  algorithm: Algorithm<S>,
  reference: Reference & { release?: (now: bigint, id: string) => void },
  options: { ops: number; maxGap: number; seed?: number; releases?: boolean },
): LongRun {
  const random = generator(options.seed ?? 0x5eed);
  const held: { id: string; cost: number }[] = [];
  const run: LongRun = { allowed: 0, denied: 0, released: 0 };
  let state: S | undefined;
  let now = START;
  for (let op = 0; op < options.ops; op++) {
    now += random(4) === 0 ? random(options.maxGap + 1) : random(Math.ceil(options.maxGap / 16) + 1);
    if (options.releases && held.length > 0 && random(8) === 0) {
      const [lease] = held.splice(random(held.length), 1);
      if (lease === undefined) continue;
      state = algorithm.refund(state, now, lease.cost, lease.id);
      reference.release?.(BigInt(now), lease.id);
      run.released++;
      continue;
    }
    const cost = random(3) === 0 ? random(algorithm.maxCost + 1) : 1;
    const id = `op${op}`;
    const outcome = algorithm.decide(state, now, cost, id);
    const expected = reference.decide(BigInt(now), BigInt(cost), id);
    const checkWait = !expected.allowed && run.denied % 7 === 0;
    if (
      outcome.allowed !== expected.allowed ||
      BigInt(outcome.remaining) !== expected.remaining ||
      (checkWait && BigInt(outcome.retryAfter) !== expected.retryAfter())
    ) {
      const want = `allowed ${expected.allowed}, remaining ${expected.remaining}${checkWait ? `, retryAfter ${expected.retryAfter()}` : ''}`;
      throw new Error(
        `step ${op} (now ${now}, cost ${cost}): got allowed ${outcome.allowed}, remaining ${outcome.remaining}, retryAfter ${outcome.retryAfter}; reference says ${want}`,
      );
    }
    if (outcome.allowed) {
      state = outcome.state;
      run.allowed++;
      if (cost > 0) held.push({ id, cost });
      if (held.length > 64) held.shift();
    } else {
      run.denied++;
    }
  }
  return run;
}
