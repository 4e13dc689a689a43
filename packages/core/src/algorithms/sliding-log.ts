import { windowOption } from '../base/duration';
import { InvalidOptionError } from '../base/errors';
import { integerOption, rejectUnknownKeys, requireObject } from '../base/validate';
import { remembered } from './memo';
import type { Duration } from '../base/duration';
import type { Algorithm, Outcome } from './types';

export interface SlidingLogOptions {
  /** Units of cost admitted in any rolling `window`. */
  limit: number;
  /** Length of the rolling window. */
  window: Duration;
}

/** Ascending timestamps (epoch ms), one per admitted unit of cost still inside the window. */
export type SlidingLogState = readonly number[];

/** Index of the first entry greater than `bound` in an ascending array. */
function firstAfter(entries: SlidingLogState, bound: number): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((entries[middle] as number) <= bound) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The entries still inside the window that ends at `now` (older ones no longer count). */
function live(state: SlidingLogState | undefined, now: number, window: number): SlidingLogState {
  if (state === undefined) return [];
  const cut = firstAfter(state, now - window);
  return cut === 0 ? state : state.slice(cut);
}

/**
 * The largest slidingLog limit: a key keeps one entry per unit admitted in the window (8 bytes in a
 * MemoryStore, about 130 in Redis), and a request of cost n writes n entries.
 */
export const MAX_SLIDING_LOG_LIMIT = 10_000;

/**
 * An exact rolling window: remembers the time of every admitted unit and admits a request only if
 * fewer than `limit` units (including it) fall in the last `window`. Memory is O(limit) per key.
 *
 * @example slidingLog({ limit: 100, window: '1m' })
 */
export function slidingLog(options: SlidingLogOptions): Algorithm<SlidingLogState> {
  return remembered('slidingLog', options, () => buildSlidingLog(options));
}

function buildSlidingLog(options: SlidingLogOptions): Algorithm<SlidingLogState> {
  const raw = requireObject('slidingLog', options);
  rejectUnknownKeys('slidingLog', raw, ['limit', 'window']);
  const limit = integerOption('slidingLog.limit', raw.limit, 1);
  if (limit > MAX_SLIDING_LOG_LIMIT) {
    throw new InvalidOptionError(
      `slidingLog.limit must be at most ${MAX_SLIDING_LOG_LIMIT} (it keeps one entry per unit admitted in the window), got ${limit}; use slidingWindow or gcra for larger limits`,
    );
  }
  const window = windowOption('slidingLog.window', raw.window);

  return {
    kind: 'slidingLog',
    limit,
    window,
    maxCost: limit,
    reserve: 0,
    params: [limit, window],
    options: { limit, window },
    decide(state, now, cost): Outcome<SlidingLogState> {
      const entries = live(state, now, window);
      const allowed = entries.length + cost <= limit;
      let kept = entries;
      if (allowed && cost > 0) {
        // After a clock step backwards older-stamped entries may sit above `now`: keep the order.
        const at = firstAfter(entries, now);
        kept = [...entries.slice(0, at), ...new Array<number>(cost).fill(now), ...entries.slice(at)];
      }
      const newest = kept.length > 0 ? (kept[kept.length - 1] as number) : undefined;
      // The (count + cost - limit)-th oldest entry is the last one that has to leave.
      const mustLeave = allowed ? undefined : entries[entries.length + cost - limit - 1];
      return {
        allowed,
        state: allowed ? kept : state,
        limit,
        remaining: limit - kept.length,
        resetAt: newest === undefined ? now : newest + window,
        retryAfter: mustLeave === undefined ? 0 : mustLeave + window - now,
        delay: 0,
      };
    },
    refund(state, now, cost) {
      if (state === undefined) return undefined;
      const entries = live(state, now, window);
      return entries.slice(0, Math.max(0, entries.length - cost));
    },
    divide(parts) {
      return slidingLog({ limit: Math.max(1, Math.floor(limit / parts)), window });
    },
  };
}
