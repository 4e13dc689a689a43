/**
 * The errors this package throws, with the same names and `code` as @floodgate/core's, so one
 * `catch` matches both. Match on `code` or `name`: two loaded copies make `instanceof` unreliable.
 */

/** An option has the wrong type, or is not an option at all. */
export class InvalidOptionTypeError extends TypeError {
  readonly code = 'ERR_FLOODGATE_INVALID_OPTION';
  override name = 'InvalidOptionTypeError';
}

/** An option has the right type but a value out of range (negative, NaN, too large, ...). */
export class InvalidOptionError extends RangeError {
  readonly code = 'ERR_FLOODGATE_INVALID_OPTION';
  override name = 'InvalidOptionError';
}

/** Formats a user-supplied value for an error message without dumping large objects. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  return 'an object';
}
