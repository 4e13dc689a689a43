import { windowOption } from '../base/duration';
import { InvalidOptionError } from '../base/errors';
import { integerOption, rejectUnknownKeys, requireObject } from '../base/validate';
import { divideReserve, reserveOption, withReserve } from './reserve';
import { remembered } from './memo';
import type { Duration } from '../base/duration';
import type { Algorithm, Outcome } from './types';

export interface SlidingWindowOptions {
  /** Units of cost admitted per window (estimated over the rolling window). */
  limit: number;
  /** Window length; the two counters are aligned to the epoch (`floor(now / window)`). */
  window: Duration;
  /** Units kept for critical requests: a fraction below 1 or a unit count. Default 0. */
  reserve?: number;
}

/** `{ start, curr, prev }`: the current aligned window's start, its count and the previous window's. */
export interface SlidingWindowState {
  start: number;
  curr: number;
  prev: number;
}

/** The counters as seen at `now`: rolled forward, `elapsed` ms into the window at `start`. */
interface View {
  start: number;
  elapsed: number;
  curr: number;
  prev: number;
}

function view(state: SlidingWindowState | undefined, now: number, window: number): View {
  const aligned = now - (now % window);
  if (state === undefined) return { start: aligned, elapsed: now - aligned, curr: 0, prev: 0 };
  // A clock that went backwards stays in the window already stored, as if no time had passed in it.
  if (aligned <= state.start)
    return { start: state.start, elapsed: Math.max(0, now - state.start), curr: state.curr, prev: state.prev };
  const prev = aligned - state.start === window ? state.curr : 0;
  return { start: aligned, elapsed: now - aligned, curr: 0, prev };
}

/**
 * When the denied request first fits, as an instant: either later in this window (once the previous
 * window's weight has shrunk enough) or in the next one, where this window's count becomes `prev`.
 */
function firstFit(v: View, cost: number, limit: number, window: number): number {
  const room = (limit - v.curr - cost) * window;
  if (room >= 0 && v.prev > 0 && Math.floor(room / v.prev) >= 1) return v.start + window - Math.floor(room / v.prev);
  const nextRoom = (limit - cost) * window;
  const wait = v.curr === 0 ? 0 : Math.max(0, window - Math.floor(nextRoom / v.curr));
  return v.start + window + wait;
}

/**
 * Approximates a rolling window with two counters: the estimate at `elapsed` ms into the current
 * window is `prev * (1 - elapsed / window) + curr`, computed exactly in integers. O(1) memory per
 * key. Bound: over any span of `window` ms it admits fewer than 2 * `limit` units, and right after a
 * full window it admits only what the previous window's weight leaves room for (see the README).
 *
 * @example slidingWindow({ limit: 300, window: '1m' })
 */
export function slidingWindow(options: SlidingWindowOptions): Algorithm<SlidingWindowState> {
  return remembered('slidingWindow', options, () => buildSlidingWindow(options));
}

function buildSlidingWindow(options: SlidingWindowOptions): Algorithm<SlidingWindowState> {
  const raw = requireObject('slidingWindow', options);
  rejectUnknownKeys('slidingWindow', raw, ['limit', 'window', 'reserve']);
  const limit = integerOption('slidingWindow.limit', raw.limit, 1);
  const window = windowOption('slidingWindow.window', raw.window);
  const reserve = reserveOption('slidingWindow.reserve', raw.reserve, limit);
  if (!Number.isSafeInteger(limit * window * 2)) {
    throw new InvalidOptionError(
      `slidingWindow: limit * window * 2 must stay below 2^53 to be computed exactly, got limit ${limit} and window ${window} ms`,
    );
  }

  return {
    kind: 'slidingWindow',
    limit,
    window,
    maxCost: limit,
    reserve,
    params: [limit, window, reserve],
    options: withReserve({ limit, window }, reserve),
    decide(state, now, cost, _id, critical = false): Outcome<SlidingWindowState> {
      const v = view(state, now, window);
      const usable = critical ? limit : limit - reserve;
      const weighted = v.prev * (window - v.elapsed);
      // prev*(window - elapsed) + (curr + cost)*window <= usable*window, kept within limit*window.
      const allowed = v.curr + cost <= usable && weighted <= (usable - v.curr - cost) * window;
      const curr = allowed ? v.curr + cost : v.curr;
      const resetAt = curr > 0 ? v.start + 2 * window : v.prev > 0 ? v.start + window : now;
      return {
        allowed,
        state: allowed ? { start: v.start, curr, prev: v.prev } : state,
        limit: usable,
        remaining: Math.max(0, Math.floor(((usable - curr) * window - weighted) / window)),
        resetAt,
        retryAfter: allowed ? 0 : firstFit(v, cost, usable, window) - now,
        delay: 0,
      };
    },
    refund(state, now, cost) {
      if (state === undefined) return undefined;
      const v = view(state, now, window);
      return { start: v.start, curr: Math.max(0, v.curr - cost), prev: v.prev };
    },
    divide(parts) {
      const share = Math.max(1, Math.floor(limit / parts));
      return slidingWindow({ limit: share, window, reserve: divideReserve(reserve, parts, share) });
    },
  };
}
