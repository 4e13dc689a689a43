import type { Outcome } from './types';

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
  if (state === undefined) return { level: 0, at: now };
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
): Outcome<BucketState> {
  const current = drained(model, state, now);
  const added = cost * model.unitsPerCost;
  const allowed = current.level + added <= model.capacity;
  const level = allowed ? current.level + added : current.level;
  const retryAfter = allowed ? 0 : Math.ceil((current.level + added - model.capacity) / model.drainPerMs);
  return {
    allowed,
    state: allowed ? { level, at: current.at } : state,
    limit,
    remaining: Math.floor((model.capacity - level) / model.unitsPerCost),
    resetAt: now + Math.ceil(level / model.drainPerMs),
    retryAfter,
    delay: allowed && shaping ? Math.ceil(current.level / model.drainPerMs) : 0,
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

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
