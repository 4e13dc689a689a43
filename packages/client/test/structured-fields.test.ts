import fc from 'fast-check';
import * as sf from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { parseDictionary, parseList } from '../src/structured-fields';
import { accepts, key, member, myMember, theirMember } from './sf-oracle';

// Thousands of generated cases: seconds on a busy machine, past vitest's 5 s default.
describe('structured fields (RFC 9651)', { timeout: 60_000 }, () => {
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
