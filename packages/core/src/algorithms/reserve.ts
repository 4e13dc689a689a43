import { InvalidOptionError, InvalidOptionTypeError, show } from '../base/errors';

/**
 * The `reserve` option: the part of a quota kept for critical requests (Stripe's critical reserve).
 * A fraction below 1 (`0.2`: a fifth of `limit`, rounded down) or a whole number of units. Normal
 * requests are denied once what is left would dip into it; critical ones may use all of it. It
 * must leave normal requests at least one unit. Default 0.
 */
export function reserveOption(name: string, value: unknown, limit: number): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number') {
    throw new InvalidOptionTypeError(
      `${name} must be a fraction below 1 or a whole number of units, got ${show(value)}`,
    );
  }
  const units = value > 0 && value < 1 ? Math.floor(limit * value) : value;
  if (!Number.isSafeInteger(units) || units < 0) {
    throw new InvalidOptionError(
      `${name} must be a fraction below 1 or a whole number of units >= 0, got ${show(value)}`,
    );
  }
  if (units >= limit) {
    throw new InvalidOptionError(
      `${name} must leave normal requests at least one of the ${limit} units, got ${show(value)}`,
    );
  }
  return units;
}

/** A reserve shared among `parts` instances (the local fallback's share), as the quota is. */
export function divideReserve(reserve: number, parts: number, dividedLimit: number): number {
  return Math.min(Math.floor(reserve / parts), dividedLimit - 1);
}

/** `options` as the user would write them: the reserve appears only when there is one. */
export function withReserve<T extends Record<string, unknown>>(options: T, reserve: number): T & { reserve?: number } {
  return reserve > 0 ? { ...options, reserve } : options;
}

/** The quota a request may use: the whole limit when critical, else the limit without the reserve. */
export function usableLimit(algorithm: { limit: number; reserve?: number }, critical: boolean | undefined): number {
  return critical === true ? algorithm.limit : algorithm.limit - (algorithm.reserve ?? 0);
}
