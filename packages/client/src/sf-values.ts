import type { BareItem, Parameters } from './structured-fields';

/** A parameter present with a value its field's definition does not allow. */
export const INVALID = Symbol('invalid');

/**
 * The parameter `key` read by `read`: undefined when absent, INVALID when present but unreadable
 * (which makes the whole field malformed: RFC 9651 §2).
 */
export function param<T>(
  params: Parameters,
  key: string,
  read: (item: BareItem) => T | undefined,
): T | undefined | typeof INVALID {
  const item = params.get(key);
  if (item === undefined) return undefined;
  const value = read(item);
  return value === undefined ? INVALID : value;
}

/** A non-negative Integer (RFC 9651 bounds it to 15 digits). */
export function count(item: BareItem | undefined): number | undefined {
  return item?.type === 'integer' && item.value >= 0 ? item.value : undefined;
}

/** A non-negative Integer of seconds, as milliseconds. */
export function seconds(item: BareItem | undefined): number | undefined {
  const value = count(item);
  return value === undefined ? undefined : value * 1000;
}

/** A positive Integer of seconds, as milliseconds (draft-9 on: a window is never 0). */
export function positiveSeconds(item: BareItem | undefined): number | undefined {
  const value = count(item);
  return value === undefined || value === 0 ? undefined : value * 1000;
}

/** A String's text. */
export function text(item: BareItem | undefined): string | undefined {
  return item?.type === 'string' ? item.value : undefined;
}

/**
 * A Byte Sequence as canonical base64 (padded, zero pad bits), so one key sent two ways compares
 * equal. atob and btoa are on every runtime fetch is (Workers, Deno, browsers, Node >= 16).
 */
export function bytes(item: BareItem | undefined): string | undefined {
  if (item?.type !== 'bytes') return undefined;
  try {
    return btoa(atob(item.value));
  } catch {
    return undefined;
  }
}
