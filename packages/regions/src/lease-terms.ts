import type { LayerCall, LayerOutcome } from '@floodgate/core/store';

/** Algorithms whose units a region may lease ahead; every other one is decided at the home, request by request. */
export const LEASED_KINDS: ReadonlySet<string> = new Set(['fixedWindow', 'slidingWindow', 'tokenBucket']);

/** What a granted lease may be used for, as the pool script stores it. */
export interface LeaseTerms {
  /** When its units may no longer be handed out (app clock, ms). */
  endsAt: number;
  /** A window's end (0 for a bucket). */
  windowEnd: number;
  /** A bucket's level just after the lease (a lower bound, in its units), 0 for a window. */
  level: number;
  /** When the lease was asked for: no later than the home decided it. */
  leasedAt: number;
  /** A bucket's units per cost and drain per ms; 0 for a window. */
  unitsPerCost: number;
  drainPerMs: number;
}

export function isWindow(call: LayerCall): boolean {
  return call.algorithm.kind !== 'tokenBucket';
}

/**
 * The terms of a lease the home granted between `leasedAt` and `answeredAt` (this process' clock).
 * A window's units are handed out only in the window the home counted them in: the home's window
 * ends at `resetAt` in its clock, which RedisStore moved into this process' clock by the time the
 * answer arrived; the home decided at least `answeredAt - leasedAt` earlier, so the window ends no
 * later than `resetAt - (answeredAt - leasedAt)` here. `clockSkew` more is kept for the other
 * processes' clocks and for the time between a decision's start and its local script run. A
 * bucket's units are handed out for `ttl` ms at most, and only while the bucket still holds them.
 */
export function leaseTerms(
  call: LayerCall,
  granted: LayerOutcome,
  size: number,
  leasedAt: number,
  answeredAt: number,
  ttl: number,
  clockSkew: number,
): LeaseTerms {
  const { kind, window, params } = call.algorithm;
  if (kind === 'fixedWindow' || kind === 'slidingWindow') {
    // fixedWindow's resetAt is its window's end; slidingWindow's is one window later (its count is > 0).
    const end = kind === 'fixedWindow' ? granted.resetAt : granted.resetAt - window;
    // The home's windows are aligned in its clock: its window's end, exactly (to give units back to it).
    const windowEnd = Math.round(end / window) * window;
    const endsAt = end - Math.max(0, answeredAt - leasedAt) - clockSkew;
    return { endsAt, windowEnd, level: 0, leasedAt, unitsPerCost: 0, drainPerMs: 0 };
  }
  const unitsPerCost = params[2] as number;
  return {
    endsAt: leasedAt + ttl,
    windowEnd: 0,
    level: levelAfter(call, granted, size),
    leasedAt,
    unitsPerCost,
    drainPerMs: params[3] as number,
  };
}

/** The terms of no lease, to record that the home is near the limit in the window now running. */
export function nearTerms(call: LayerCall, now: number, ttl: number, clockSkew: number): LeaseTerms {
  const { kind, window } = call.algorithm;
  if (kind === 'fixedWindow' || kind === 'slidingWindow') {
    const windowEnd = now - (now % window) + window;
    return { endsAt: windowEnd - clockSkew, windowEnd, level: 0, leasedAt: now, unitsPerCost: 0, drainPerMs: 0 };
  }
  return { endsAt: now + ttl, windowEnd: 0, level: 0, leasedAt: now, unitsPerCost: 1, drainPerMs: 0 };
}

/**
 * A lower bound of the bucket's level just after a lease of `size` (a lease is never critical): at
 * least the lease itself, and at least what the remaining it reported implies (remaining is whole
 * tokens, rounded down).
 */
function levelAfter(call: LayerCall, granted: LayerOutcome, size: number): number {
  const { params, reserve } = call.algorithm;
  const capacity = params[1] as number;
  const unitsPerCost = params[2] as number;
  const fromRemaining = capacity - reserve * unitsPerCost - (granted.remaining + 1) * unitsPerCost + 1;
  return Math.max(size * unitsPerCost, fromRemaining);
}
