const CODE_PREFIX = 'ERR_FLOODGATE_';

function hasFloodgateCode(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { code?: unknown }).code === 'string' &&
    (value as { code: string }).code.startsWith(CODE_PREFIX)
  );
}

/**
 * Every error Floodgate throws carries a stable `code` starting with `ERR_FLOODGATE_`.
 * `instanceof FloodgateError` is true for all of them, including the TypeError and RangeError
 * subclasses, and across two loaded copies of the package (it checks the code).
 */
export class FloodgateError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FloodgateError';
    this.code = code;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    // Subclasses inherit this method: `this` is the class on the right of `instanceof`.
    // biome-ignore lint/complexity/noThisInStatic: only the base class answers by code.
    if (this !== FloodgateError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return hasFloodgateCode(value);
  }
}

/** An option has the wrong type, or is not an option at all. */
export class InvalidOptionTypeError extends TypeError {
  readonly code = 'ERR_FLOODGATE_INVALID_OPTION';
  override name = 'InvalidOptionTypeError';
}

/** An option has the right type but a value out of range (0, negative, NaN, too large, ...). */
export class InvalidOptionError extends RangeError {
  readonly code = 'ERR_FLOODGATE_INVALID_OPTION';
  override name = 'InvalidOptionError';
}

/** A per-call cost is not an integer, is negative, or exceeds what the rule can ever admit. */
export class InvalidCostError extends RangeError {
  readonly code = 'ERR_FLOODGATE_INVALID_COST';
  override name = 'InvalidCostError';
}

/** A store call did not settle within the limiter's deadline. */
export class StoreTimeoutError extends FloodgateError {
  constructor(timeoutMs: number) {
    super('ERR_FLOODGATE_STORE_TIMEOUT', `store call did not settle within ${timeoutMs} ms`);
    this.name = 'StoreTimeoutError';
  }
}

/** A store failed, or answered with something the limiter cannot use. */
export class StoreError extends FloodgateError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_FLOODGATE_STORE', message, options);
    this.name = 'StoreError';
  }
}

/** The circuit breaker is open: the store is not being called. */
export class BreakerOpenError extends FloodgateError {
  constructor() {
    super('ERR_FLOODGATE_BREAKER_OPEN', 'circuit breaker is open; the store is not being called');
    this.name = 'BreakerOpenError';
  }
}

/** A key function threw, or returned something other than a string or undefined. */
export class KeyFunctionError extends FloodgateError {
  constructor(rule: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super('ERR_FLOODGATE_KEY_FUNCTION', `the key function of rule "${rule}" failed: ${reason}`, { cause });
    this.name = 'KeyFunctionError';
  }
}

/** A rule's algorithm function threw, rejected, or returned something that is not an algorithm. */
export class AlgorithmFunctionError extends FloodgateError {
  constructor(rule: string, reason: string, cause?: unknown) {
    super('ERR_FLOODGATE_ALGORITHM_FUNCTION', `the algorithm function of rule "${rule}" ${reason}`, { cause });
    this.name = 'AlgorithmFunctionError';
  }
}

/** Formats a user-supplied value for an error message without dumping large objects or secrets. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  return 'an object';
}
