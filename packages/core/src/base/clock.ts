import { show } from './errors';
import { WarningCode } from './warnings';
import type { Warn } from './warnings';

/**
 * A user's clock, checked at every reading: a NaN or undefined `now` would stop a fixed window
 * from counting or make a sliding window deny forever. A reading that is not a finite number >= 0
 * is replaced by `Date.now()` (the limits keep working) and reported once; a fraction of a
 * millisecond is dropped.
 */
export function checkedClock(clock: () => number, name: string, warn: Warn): () => number {
  if (clock === Date.now) return clock;
  return () => {
    const now: unknown = clock();
    if (typeof now === 'number' && Number.isFinite(now) && now >= 0) return Math.floor(now);
    warn(
      WarningCode.badClock,
      `${name} returned ${show(now)}, not epoch milliseconds; Date.now() is used for such readings`,
    );
    return Date.now();
  };
}
