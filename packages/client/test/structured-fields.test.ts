import fc from 'fast-check';
import * as sf from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { parseDictionary, parseList } from '../src/structured-fields';
import type { BareItem, Member } from '../src/structured-fields';

/** A bare item in one shape for both parsers: numbers by value (theirs cannot tell 1 from 1.0). */
type Plain = [string, unknown];

function mine(item: BareItem): Plain {
  if (item.type === 'integer' || item.type === 'decimal') return ['number', item.value];
  if (item.type === 'display') return ['display', decodeURIComponent(item.value)];
  return [item.type, item.value];
}

function theirs(item: sf.BareItem): Plain {
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

function myMember(member: Member): unknown {
  if (member.inner) return [member.inner.map((item) => [mine(item.value), params(item.params)]), params(member.params)];
  return [mine(member.value as BareItem), params(member.params)];
}

function theirMember(member: sf.Item | sf.InnerList): unknown {
  if (Array.isArray(member[0])) {
    const [items, listParams] = member as sf.InnerList;
    return [items.map(([value, p]) => [theirs(value), theirParams(p)]), theirParams(listParams)];
  }
  const [value, p] = member as sf.Item;
  return [theirs(value), theirParams(p)];
}

const key = fc.stringMatching(/^[a-z*][a-z0-9_\-.*]{0,6}$/);
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
const member = fc.oneof(item, fc.tuple(fc.array(item, { maxLength: 3 }), parameters) as fc.Arbitrary<sf.InnerList>);

describe('structured fields (RFC 9651)', () => {
  it('reads what structured-headers writes, for every bare item type, in lists and dictionaries', () => {
    fc.assert(
      fc.property(fc.array(member, { maxLength: 4 }), (list) => {
        const text = sf.serializeList(list);
        expect(parseList(text)?.map(myMember)).toEqual(list.map(theirMember));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(key, member), { maxLength: 4, selector: ([k]) => k }), (entries) => {
        const text = sf.serializeDictionary(new Map(entries));
        const parsed = parseDictionary(text);
        expect(parsed && [...parsed].map(([k, m]) => [k, myMember(m)])).toEqual(
          entries.map(([k, m]) => [k, theirMember(m)]),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('accepts and rejects the same text as structured-headers', () => {
    // No '@': structured-headers 2.1.0 reads a Date up to the end of the field, so it refuses `@1, a`.
    const alphabet = fc.constantFrom(...'aZ*09-.;=,() "\\:?%\t_/+'.split(''));
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 14 }).map((chars) => chars.join('')),
        (text) => {
          const expected = accepts(() => sf.parseList(text));
          expect(parseList(text) !== undefined, `list ${JSON.stringify(text)}`).toBe(expected);
          const expectedDictionary = accepts(() => sf.parseDictionary(text));
          expect(parseDictionary(text) !== undefined, `dictionary ${JSON.stringify(text)}`).toBe(expectedDictionary);
        },
      ),
      { numRuns: 20000 },
    );
  });

  it('fails a whole field on one bad member, as the RFC requires', () => {
    for (const text of [
      'a, ',
      '1.',
      '1.2345',
      '1234567890123456',
      '"open',
      'a;B=1',
      '?2',
      ':a*:',
      '(a b',
      'a,,b',
      'é',
    ]) {
      expect(parseList(text), text).toBeUndefined();
    }
    expect(parseList('')).toEqual([]);
    expect(parseList('@1659578233, a;d=@-5')?.map((m) => [m.value, [...m.params.values()]])).toEqual([
      [{ type: 'date', value: 1659578233 }, []],
      [{ type: 'token', value: 'a' }, [{ type: 'date', value: -5 }]],
    ]);
    expect(parseList('@1.5')).toBeUndefined();
    expect(parseList('  "x";q=1 ,\t y  ')?.length).toBe(2);
  });
});

function accepts(parse: () => unknown): boolean {
  try {
    parse();
    return true;
  } catch {
    return false;
  }
}
