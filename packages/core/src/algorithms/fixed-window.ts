import { windowOption } from '../base/duration';
import { integerOption, rejectUnknownKeys, requireObject } from '../base/validate';
import { divideReserve, reserveOption, withReserve } from './reserve';
import { remembered } from './memo';
import type { Duration } from '../base/duration';
import type { Algorithm, Outcome } from './types';

export interface FixedWindowOptions {
  /** Requests (units of cost) admitted per window. */
  limit: number;
  /** Window length; windows are aligned to the epoch (`floor(now / window)`). */
  window: Duration;
  /** Units kept for critical requests: a fraction below 1 or a unit count. Default 0. */
  reserve?: number;
}

/** `{ start, count }`: the aligned window's start (epoch ms) and the units counted in it. */
export interface FixedWindowState {
  start: number;
  count: number;
}

/**
 * Counts units per epoch-aligned window. Cheapest of all, but a client can spend a full window's
 * quota just before a boundary and again just after it (up to 2x `limit` within a short span).
 *
 * @example fixedWindow({ limit: 100, window: '1m' })
 */
export function fixedWindow(options: FixedWindowOptions): Algorithm<FixedWindowState> {
  return remembered('fixedWindow', options, () => buildFixedWindow(options));
}

function buildFixedWindow(options: FixedWindowOptions): Algorithm<FixedWindowState> {
  const raw = requireObject('fixedWindow', options);
  rejectUnknownKeys('fixedWindow', raw, ['limit', 'window', 'reserve']);
  const limit = integerOption('fixedWindow.limit', raw.limit, 1);
  const window = windowOption('fixedWindow.window', raw.window);
  const reserve = reserveOption('fixedWindow.reserve', raw.reserve, limit);

  /** A clock that went backwards stays in the window already stored. */
  const currentStart = (state: FixedWindowState | undefined, now: number) => {
    const aligned = now - (now % window);
    return state === undefined ? aligned : Math.max(aligned, state.start);
  };

  return {
    kind: 'fixedWindow',
    limit,
    window,
    maxCost: limit,
    reserve,
    params: [limit, window, reserve],
    options: withReserve({ limit, window }, reserve),
    decide(state, now, cost, _id, critical = false): Outcome<FixedWindowState> {
      const start = currentStart(state, now);
      const count = state !== undefined && state.start === start ? state.count : 0;
      const usable = critical ? limit : limit - reserve;
      const allowed = count + cost <= usable;
      const used = allowed ? count + cost : count;
      return {
        allowed,
        state: allowed ? { start, count: used } : state,
        limit: usable,
        remaining: Math.max(0, usable - used),
        resetAt: start + window,
        retryAfter: allowed ? 0 : start + window - now,
        delay: 0,
      };
    },
    refund(state, now, cost) {
      if (state === undefined || state.start !== currentStart(state, now)) return state;
      return { start: state.start, count: Math.max(0, state.count - cost) };
    },
    divide(parts) {
      const share = Math.max(1, Math.floor(limit / parts));
      return fixedWindow({ limit: share, window, reserve: divideReserve(reserve, parts, share) });
    },
  };
}
