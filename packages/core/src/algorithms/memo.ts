import { LRUCache } from 'lru-cache';
import type { Algorithm } from './types';

/** Distinct option sets remembered per process; a per-tenant table rarely holds more. */
const MAX_REMEMBERED = 1000;

const made = new LRUCache<string, Algorithm>({ max: MAX_REMEMBERED });

/**
 * The factories hand back the Algorithm they already made for equal options, so a rule's
 * per-request algorithm function (a plan tier read from a table) costs a lookup, not a validation,
 * and every request of a tier shares one object (and its cached key tag). Options with anything
 * but numbers and strings are built afresh each time.
 */
export function remembered<A extends Algorithm>(kind: string, options: unknown, build: () => A): A {
  const key = cacheKey(kind, options);
  if (key === undefined) return build();
  const known = made.get(key);
  if (known !== undefined) return known as A;
  const algorithm = build();
  made.set(key, algorithm);
  return algorithm;
}

function cacheKey(kind: string, options: unknown): string | undefined {
  if (typeof options !== 'object' || options === null || Object.getPrototypeOf(options) !== Object.prototype) {
    return undefined;
  }
  let key = kind;
  for (const name in options) {
    const value = (options as Record<string, unknown>)[name];
    // The type is part of the key: 1 and '1' are different options (one of them is wrong).
    if (typeof value === 'number') key += `|${name}=n${value}`;
    else if (typeof value === 'string') key += `|${name}=s${value}`;
    else if (value !== undefined) return undefined;
  }
  return key;
}
