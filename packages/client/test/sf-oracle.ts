import fc from 'fast-check';
import * as sf from 'structured-headers';
import type { BareItem, Member } from '../src/structured-fields';

/**
 * structured-headers (a well-kept RFC 9651 implementation) as the oracle for this package's own
 * parser: both parses in one shape, and generators of what it serializes.
 */

/** A bare item in one shape for both parsers: numbers by value (theirs cannot tell 1 from 1.0). */
type Plain = [string, unknown];

export function mine(item: BareItem): Plain {
  if (item.type === 'integer' || item.type === 'decimal') return ['number', item.value];
  if (item.type === 'display') return ['display', decodeURIComponent(item.value)];
  // Unpadded base64, or stray pad bits, name the same bytes: theirs re-encodes them canonically.
  if (item.type === 'bytes') return ['bytes', btoa(atob(item.value))];
  return [item.type, item.value];
}

export function theirs(item: sf.BareItem): Plain {
  if (typeof item === 'number') return ['number', item];
  if (typeof item === 'string') return ['string', item];
  if (typeof item === 'boolean') return ['boolean', item];
  if (item instanceof sf.Token) return ['token', item.toString()];
  if (item instanceof sf.DisplayString) return ['display', item.toString()];
  if (item instanceof Date) return ['date', item.getTime() / 1000];
  return ['bytes', sf.arrayBufferToBase64(item as ArrayBuffer)];
}

const params = (map: Map<string, BareItem>) => [...map].map(([key, value]) => [key, mine(value)]);
const theirParams = (map: sf.Parameters) => [...map].map(([key, value]) => [key, theirs(value)]);

export function myMember(member: Member): unknown {
  if (member.inner) return [member.inner.map((item) => [mine(item.value), params(item.params)]), params(member.params)];
  return [mine(member.value as BareItem), params(member.params)];
}

export function theirMember(member: sf.Item | sf.InnerList): unknown {
  if (Array.isArray(member[0])) {
    const [items, listParams] = member as sf.InnerList;
    return [items.map(([value, p]) => [theirs(value), theirParams(p)]), theirParams(listParams)];
  }
  const [value, p] = member as sf.Item;
  return [theirs(value), theirParams(p)];
}

export const key = fc.stringMatching(/^[a-z*][a-z0-9_\-.*]{0,6}$/);
const bareItem: fc.Arbitrary<sf.BareItem> = fc.oneof(
  fc.integer({ min: -999_999_999_999_999, max: 999_999_999_999_999 }),
  fc.integer({ min: -999_999_999_999_999, max: 999_999_999_999_999 }).map((thousandths) => thousandths / 1000),
  fc.stringMatching(/^[\x20-\x7e]{0,12}$/),
  fc.stringMatching(/^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]{0,8}$/).map((token) => new sf.Token(token)),
  fc.uint8Array({ maxLength: 8 }).map((bytes) => bytes.buffer as ArrayBuffer),
  fc.boolean(),
  fc.integer({ min: -1e9, max: 1e9 }).map((seconds) => new Date(seconds * 1000)),
  fc.string({ unit: 'grapheme', maxLength: 6 }).map((text) => new sf.DisplayString(text)),
);
const parameters = fc
  .uniqueArray(fc.tuple(key, bareItem), { maxLength: 3, selector: ([k]) => k })
  .map((e) => new Map(e));
const item = fc.tuple(bareItem, parameters) as fc.Arbitrary<sf.Item>;
export const member = fc.oneof(
  item,
  fc.tuple(fc.array(item, { maxLength: 3 }), parameters) as fc.Arbitrary<sf.InnerList>,
);

/** Whether `parse` returns rather than throws. */
export function accepts(parse: () => unknown): boolean {
  try {
    parse();
    return true;
  } catch {
    return false;
  }
}
