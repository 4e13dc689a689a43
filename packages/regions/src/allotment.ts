import { fixedWindow } from '@floodgate/core';
import type { Algorithm } from '@floodgate/core';
import type { LayerCall } from '@floodgate/core/store';

/**
 * Standing allotments: in every window, each region other than a key's home may spend `units` of
 * a fixedWindow limit without asking the home, and the home hands out only `limit - (regions - 1)
 * * units` (its algorithm runs with that lower limit). So the home counts every allotment as
 * handed out from the window's start, whether or not a region ever claims it, and a cold key's
 * first requests in a region are local. Only fixedWindow: a slidingWindow's count carries into
 * the next window, and units counted up front at a window's start would break its span bound.
 */
export interface Allotment {
  /** Units per region other than the home, per window (0: none). */
  units: number;
  /** The algorithm the home decides with: the same window, the limit less every allotment. */
  home: Algorithm;
}

/** The allotment of `call`'s algorithm for `share` of its limit and `regions` regions; cached per algorithm. */
export function allotmentOf(
  call: LayerCall,
  share: number,
  regions: number,
  cache: WeakMap<object, Allotment>,
): Allotment {
  const algorithm = call.algorithm;
  const known = cache.get(algorithm);
  if (known !== undefined) return known;
  const { kind, limit, window } = algorithm;
  const { reserve } = algorithm;
  // From the limit non-critical requests may use, so the home keeps the whole reserve.
  const units = kind === 'fixedWindow' && share > 0 ? Math.floor(share * (limit - reserve)) : 0;
  const allotment: Allotment =
    units === 0
      ? { units: 0, home: algorithm }
      : {
          units,
          home: fixedWindow({
            limit: limit - (regions - 1) * units,
            window,
            ...(reserve > 0 ? { reserve } : {}),
          }) as Algorithm,
        };
  cache.set(algorithm, allotment);
  return allotment;
}

/**
 * What this process knows of a home's clock: at every instant, home time - this process' time
 * lies in [lo, hi] (ms). A sample of the home's TIME taken between local `sent` and `received`
 * gives [T - received, T - sent]; with clocks running at one rate, every sample holds for good,
 * so they are intersected (a sample that does not meet the others means a clock was set: it
 * replaces them).
 */
export interface ClockOffset {
  lo: number;
  hi: number;
}

export function mergeOffset(known: ClockOffset | undefined, sample: ClockOffset): ClockOffset {
  if (known === undefined) return sample;
  const lo = Math.max(known.lo, sample.lo);
  const hi = Math.min(known.hi, sample.hi);
  return lo <= hi ? { lo, hi } : sample;
}

/**
 * The pool script's arguments to claim this window's allotment, or undefined when this process
 * cannot be sure which window the home is in from `now` until `clockSkew` later. The claim is for
 * the home's window W = [start, end) containing [now + lo, now + hi + clockSkew]; its units are
 * handed out until `end - hi - clockSkew` here (the home is still in W then), and the pool hash
 * (which records the claim) is kept until the home is surely past W, so W is claimed once.
 */
export function claimArgs(
  now: number,
  cost: number,
  units: number,
  window: number,
  offset: ClockOffset,
  clockSkew: number,
  homeRemaining: number,
): number[] | undefined {
  const earliest = now + offset.lo;
  const start = earliest - (earliest % window);
  const end = start + window;
  if (now + offset.hi + clockSkew >= end) return undefined;
  const endsAt = end - offset.hi - clockSkew;
  const keep = end - earliest + 1000;
  const resetAt = end - Math.round((offset.lo + offset.hi) / 2);
  return [now, cost, units, end, endsAt, keep, resetAt, homeRemaining];
}
