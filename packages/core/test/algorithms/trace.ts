import fc from 'fast-check';
import type { Algorithm } from '@floodgate/core';
import type { Outcome } from '@floodgate/core/store';

/** One request of a trace: `gap` ms after the previous one (negative: the clock stepped back). */
export interface Step {
  gap: number;
  cost: number;
}

export const START = 1_764_000_000_000;

/** Arrival gaps mixing bursts, steady traffic and long pauses, scaled to the window under test. */
export function gapArb(window: number, backwards = false): fc.Arbitrary<number> {
  const forward = [
    { weight: 4, arbitrary: fc.constant(0) },
    { weight: 6, arbitrary: fc.integer({ min: 1, max: Math.max(1, Math.ceil(window / 20)) }) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 2 * window }) },
  ];
  if (!backwards) return fc.oneof(...forward);
  return fc.oneof(...forward, { weight: 1, arbitrary: fc.integer({ min: -window, max: -1 }) });
}

export function traceArb(window: number, maxCost: number, backwards = false): fc.Arbitrary<Step[]> {
  const cost = fc.oneof(
    { weight: 5, arbitrary: fc.constant(1) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: maxCost }) },
  );
  return fc.array(fc.record({ gap: gapArb(window, backwards), cost }), { minLength: 1, maxLength: 200 });
}

/**
 * Runs `check` as a fast-check property over 200 bucket shapes: a capacity of 1 to 8, a rate of 1
 * to 20 000 thousandths of a unit per second (`milliRate`), and `gen` to draw a trace with.
 */
export function forAllBuckets(check: (capacity: number, milliRate: number, gen: fc.GeneratorValue) => void): void {
  fc.assert(fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 20_000 }), fc.gen(), check), {
    numRuns: 200,
  });
}

export interface Played<S> {
  now: number;
  cost: number;
  id: string;
  before: S | undefined;
  outcome: Outcome<S>;
}

/** Replays a trace the way MemoryStore does: the state moves on only when a request is allowed. */
export function play<S>(algorithm: Algorithm<S>, steps: readonly Step[], start = START): Played<S>[] {
  let state: S | undefined;
  let now = start;
  return steps.map((step, index) => {
    now += step.gap;
    const id = `req-${index}`;
    const before = state;
    const outcome = algorithm.decide(state, now, step.cost, id);
    if (outcome.allowed) state = outcome.state;
    return { now, cost: step.cost, id, before, outcome };
  });
}

/**
 * The rules every algorithm keeps, checked at every step of a trace: the input state is never
 * mutated, a denied request hands back the very same state object, and a denied request's
 * `retryAfter` is exact (allowed after waiting it with no other traffic, denied 1 ms earlier).
 */
export function checkRules<S>(algorithm: Algorithm<S>, steps: readonly Step[]): void {
  let state: S | undefined;
  let now = START;
  steps.forEach((step, index) => {
    now += step.gap;
    const snapshot = structuredClone(state);
    const outcome = algorithm.decide(state, now, step.cost, `req-${index}`);
    expectEqual(state, snapshot, 'decide mutated its input state');
    if (outcome.allowed) {
      expectEqual(outcome.retryAfter, 0, 'an allowed request has no retryAfter');
      state = outcome.state;
      return;
    }
    expectEqual(outcome.state === state, true, 'a denied request must return the input state unchanged');
    const wait = outcome.retryAfter;
    if (!(wait >= 1)) throw new Error(`retryAfter ${wait} at step ${index}`);
    const early = algorithm.decide(state, now + wait - 1, step.cost, `req-${index}`);
    const onTime = algorithm.decide(state, now + wait, step.cost, `req-${index}`);
    expectEqual([early.allowed, onTime.allowed], [false, true], `retryAfter ${wait} at step ${index} is not exact`);
  });
}

function expectEqual(actual: unknown, expected: unknown, message: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${message}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  }
}
