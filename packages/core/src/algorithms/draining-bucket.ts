import { InvalidOptionError } from '../base/errors';
import type { Algorithm, Outcome } from './types';

/**
 * The model shared by tokenBucket, leakyBucket and gcra: a level of integer units that drains by
 * `drainPerMs` units every millisecond. A request of cost n adds `n * unitsPerCost` units and is
 * admitted while the level stays within `capacity` units. Scaling every quantity to integers up
 * front (see `scaleRate`) keeps the arithmetic exact over any number of operations.
 *
 * State `{ level, at }`: units held at instant `at` (epoch ms). The Lua twin is lua/bucket.lua.
 */
export interface BucketState {
  level: number;
  at: number;
}

export interface BucketModel {
  /** Units the bucket holds at most. */
  capacity: number;
  /** Units one unit of cost adds. */
  unitsPerCost: number;
  /** Units drained per millisecond. */
  drainPerMs: number;
}

/** The level at `now`. A clock that went backwards drains nothing (and never fills). */
function drained(model: BucketModel, state: BucketState | undefined, now: number): BucketState {
  // An empty bucket has nothing to pin, even if the clock stepped back past its instant.
  if (state === undefined || state.level === 0) return { level: 0, at: now };
  const elapsed = now - state.at;
  if (elapsed <= 0) return state;
  const drain = elapsed >= Math.ceil(state.level / model.drainPerMs) ? state.level : elapsed * model.drainPerMs;
  return { level: state.level - drain, at: now };
}

/** `shaping` admits the same requests but reports how long the units ahead take to drain. */
export function decideBucket(
  model: BucketModel,
  limit: number,
  state: BucketState | undefined,
  now: number,
  cost: number,
  shaping: boolean,
  reserve = 0,
): Outcome<BucketState> {
  const current = drained(model, state, now);
  const added = cost * model.unitsPerCost;
  // A normal request sees the capacity without the reserve.
  const capacity = model.capacity - reserve * model.unitsPerCost;
  const allowed = current.level + added <= capacity;
  const level = allowed ? current.level + added : current.level;
  // After a clock step backwards the level is pinned at `current.at` (> now): waits count from there.
  const ahead = current.at - now;
  const retryAfter = allowed ? 0 : ahead + Math.ceil((current.level + added - capacity) / model.drainPerMs);
  return {
    allowed,
    state: allowed ? { level, at: current.at } : state,
    limit: limit - reserve,
    remaining: Math.max(0, Math.floor((capacity - level) / model.unitsPerCost)),
    resetAt: current.at + Math.ceil(level / model.drainPerMs),
    retryAfter,
    delay: allowed && shaping ? ahead + Math.ceil(current.level / model.drainPerMs) : 0,
  };
}

export function refundBucket(
  model: BucketModel,
  state: BucketState | undefined,
  now: number,
  cost: number,
): BucketState | undefined {
  if (state === undefined) return undefined;
  const current = drained(model, state, now);
  return { level: Math.max(0, current.level - cost * model.unitsPerCost), at: current.at };
}

/**
 * Expresses "`amount` per `periodMs`" as integers: each unit of cost is worth `unitsPerCost`
 * units and `drainPerMs` units drain per millisecond. `amount` may have up to 6 decimals.
 * Returns undefined when no exact integer form exists (too many decimals).
 */
export function scaleRate(amount: number, periodMs: number): { unitsPerCost: number; drainPerMs: number } | undefined {
  for (let scale = 1; scale <= 1_000_000; scale *= 10) {
    const scaled = amount * scale;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-9 * Math.max(1, scaled)) {
      const divisor = gcd(periodMs * scale, Math.round(scaled));
      return { unitsPerCost: (periodMs * scale) / divisor, drainPerMs: Math.round(scaled) / divisor };
    }
  }
  return undefined;
}

/** Greatest common divisor, to keep the integer forms of rates small. */
export function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * The Algorithm value shared by tokenBucket, leakyBucket and gcra. `params` are the Lua twin's ARGV:
 * limit, capacity, unitsPerCost, drainPerMs, then `extra` (leakyBucket's shaping flag), then the
 * reserve (cost units kept for critical requests).
 */
export function bucketAlgorithm(spec: {
  kind: 'tokenBucket' | 'leakyBucket' | 'gcra';
  model: BucketModel;
  limit: number;
  reserve: number;
  options: Record<string, unknown>;
  shaping: boolean;
  extra: readonly number[];
  divide: (parts: number) => Algorithm<BucketState>;
}): Algorithm<BucketState> {
  const { model, limit, shaping, reserve } = spec;
  return {
    kind: spec.kind,
    limit,
    window: Math.ceil(model.capacity / model.drainPerMs),
    maxCost: limit,
    reserve,
    params: [limit, model.capacity, model.unitsPerCost, model.drainPerMs, ...spec.extra, reserve],
    options: spec.options,
    decide: (state, now, cost, _id, critical = false) =>
      decideBucket(model, limit, state, now, cost, shaping, critical ? 0 : reserve),
    refund: (state, now, cost) => refundBucket(model, state, now, cost),
    divide: spec.divide,
  };
}

/** A level plus one full request reaches 2 * capacity units: that must stay an exact integer. */
export function checkBucketSize(where: string, model: BucketModel, described: string): void {
  if (!Number.isSafeInteger(model.capacity * 2) || !Number.isSafeInteger(model.drainPerMs)) {
    throw new InvalidOptionError(
      `${where}: ${described} needs ${model.capacity} integer units, too many to count exactly (at most 2^52); use a smaller size or a rate with fewer decimals`,
    );
  }
}

/** A per-second rate shared among `parts` instances, kept to the 6 decimals scaleRate accepts. */
export function divideRate(rate: number, parts: number): number {
  return Math.max(1, Math.floor((rate * 1_000_000) / parts)) / 1_000_000;
}
