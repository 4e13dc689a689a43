import { InvalidOptionError, InvalidOptionTypeError, show } from './errors';

type Unit = 'ms' | 's' | 'm' | 'h' | 'd';

/** Milliseconds, or a string such as `'500ms'`, `'10 s'`, `'1m'`, `'1h'`, `'1d'`. */
export type Duration = number | `${number}${Unit}` | `${number} ${Unit}`;

const UNIT_MS: Record<Unit, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^(\d+(?:\.\d+)?) ?(ms|s|m|h|d)$/;

/**
 * Turns a Duration into whole milliseconds.
 * Numbers are returned as they are (they must be finite and >= 0); strings need a unit.
 * Rejects `''`, unknown or missing units, negatives, and values that are not whole milliseconds.
 *
 * @example parseDuration('1m') // 60000
 */
export function parseDuration(value: Duration, name = 'duration'): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) {
      throw new InvalidOptionError(`${name} must be a finite number of milliseconds >= 0, got ${show(value)}`);
    }
    return value;
  }
  if (typeof value !== 'string') {
    throw new InvalidOptionTypeError(`${name} must be milliseconds or a string such as '10 s', got ${show(value)}`);
  }
  const match = PATTERN.exec(value.trim());
  if (!match) {
    throw new InvalidOptionError(
      `${name} must be a number followed by one of ms, s, m, h, d (such as '500ms' or '10 s'), got ${show(value)}`,
    );
  }
  const ms = Number(match[1]) * UNIT_MS[match[2] as Unit];
  if (!Number.isSafeInteger(ms)) {
    throw new InvalidOptionError(`${name} must come to a whole number of milliseconds, got ${show(value)}`);
  }
  return ms;
}

/** A duration option that must be a whole number of milliseconds >= 1. */
export function windowOption(name: string, value: unknown): number {
  const ms = parseDuration(value as Duration, name);
  if (!Number.isSafeInteger(ms) || ms < 1) {
    throw new InvalidOptionError(`${name} must be a whole number of milliseconds >= 1, got ${show(value)}`);
  }
  return ms;
}

/**
 * The longest delay a timer can wait: setTimeout treats anything above 2^31 - 1 ms (24.8 days)
 * as 1 ms, so a longer deadline would expire at once.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A duration option that a timer waits for: whole milliseconds from `min` up to MAX_TIMER_MS. */
export function timerOption(name: string, value: unknown, min = 1): number {
  const ms = parseDuration(value as Duration, name);
  if (!Number.isSafeInteger(ms) || ms < min || ms > MAX_TIMER_MS) {
    throw new InvalidOptionError(
      `${name} must be a whole number of milliseconds from ${min} to ${MAX_TIMER_MS} (the longest timer), got ${show(value)}`,
    );
  }
  return ms;
}
