import { InvalidOptionError, InvalidOptionTypeError, show } from './errors';

/**
 * Small checks shared by every options parser. Each throws InvalidOptionError naming the option
 * (dotted path from the user's object), the value and what was expected.
 */

export function rejectUnknownKeys(where: string, options: object, allowed: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new InvalidOptionTypeError(`${where}: unknown option "${key}"; expected one of ${allowed.join(', ')}`);
    }
  }
}

export function requireObject(where: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidOptionTypeError(`${where}: options must be an object, got ${show(value)}`);
  }
  return value as Record<string, unknown>;
}

/** An integer in [min, Number.MAX_SAFE_INTEGER]. */
export function integerOption(name: string, value: unknown, min: number): number {
  if (typeof value !== 'number') {
    throw new InvalidOptionTypeError(`${name} must be an integer >= ${min}, got ${show(value)}`);
  }
  if (!Number.isSafeInteger(value) || value < min) {
    throw new InvalidOptionError(`${name} must be an integer >= ${min}, got ${show(value)}`);
  }
  return value;
}

/** A finite number greater than zero. */
export function positiveNumberOption(name: string, value: unknown): number {
  if (typeof value !== 'number') {
    throw new InvalidOptionTypeError(`${name} must be a finite number > 0, got ${show(value)}`);
  }
  if (!Number.isFinite(value) || value <= 0) {
    throw new InvalidOptionError(`${name} must be a finite number > 0, got ${show(value)}`);
  }
  return value;
}

export function oneOfOption<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new InvalidOptionTypeError(
      `${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${show(value)}`,
    );
  }
  return value as T;
}

/** A request's priority said outright (the Priority type): `'critical'` or `'normal'`. */
export function priorityOption(name: string, value: unknown): 'critical' | 'normal' {
  return oneOfOption(name, value, ['critical', 'normal'] as const);
}

export function functionOption<F>(name: string, value: unknown): F {
  if (typeof value !== 'function') {
    throw new InvalidOptionTypeError(`${name} must be a function, got ${show(value)}`);
  }
  return value as F;
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Prefixes and rule names become part of Redis keys: no braces, no colons, bounded length. */
export function nameOption(name: string, value: unknown): string {
  if (typeof value !== 'string' || !NAME.test(value)) {
    throw new InvalidOptionTypeError(`${name} must be 1-64 characters from [A-Za-z0-9._-], got ${show(value)}`);
  }
  return value;
}

export function booleanOption(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new InvalidOptionTypeError(`${name} must be true or false, got ${show(value)}`);
  return value;
}
