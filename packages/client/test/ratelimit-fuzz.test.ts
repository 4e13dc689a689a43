import fc from 'fast-check';
import * as sf from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { readRateLimit } from '../src/index';
import { parseList } from '../src/structured-fields';
import { accepts, myMember, theirMember } from './sf-oracle';
import type { RateLimitPolicy } from '../src/index';

/**
 * The RateLimit fields of drafts 8 to 11, written by structured-headers (the well-kept RFC 9651
 * implementation, a devDependency only) and read by this package's own dependency-free parser.
 */

/** One policy as a generator draws it, before it is written into the two fields. */
interface Drawn {
  name: string;
  asToken: boolean;
  pk: Uint8Array | undefined;
  q: number;
  qu: string | undefined;
  w: number | undefined;
  r: number;
  t: number | undefined;
  inLimit: boolean;
  inPolicy: boolean;
  vendor: [string, sf.BareItem][];
}

const int = fc.integer({ min: 0, max: 999_999_999_999_999 });
const vendorParam = fc.tuple(
  fc.constantFrom('acme-burst', 'comment', 'x', 'policy'),
  fc.oneof(
    fc.integer({ min: -1e6, max: 1e6 }),
    fc.stringMatching(/^[\x20-\x7e]{0,8}$/),
    fc.boolean(),
    fc.uint8Array({ maxLength: 4 }).map((b) => b.buffer as ArrayBuffer),
  ),
);
const drawn: fc.Arbitrary<Drawn> = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
  asToken: fc.boolean(),
  pk: fc.option(fc.uint8Array({ minLength: 1, maxLength: 12 }), { nil: undefined }),
  q: int,
  qu: fc.option(fc.constantFrom('requests', 'content-bytes', 'concurrent-requests'), { nil: undefined }),
  w: fc.option(fc.integer({ min: 1, max: 999_999_999 }), { nil: undefined }),
  r: int,
  t: fc.option(fc.integer({ min: 0, max: 999_999_999 }), { nil: undefined }),
  inLimit: fc.boolean(),
  inPolicy: fc.boolean(),
  vendor: fc.uniqueArray(vendorParam, { maxLength: 2, selector: ([k]) => k }),
});
const drawnSet = fc
  .uniqueArray(drawn, { maxLength: 6, selector: (d) => d.name })
  .filter((set) => set.some((d) => d.inLimit || d.inPolicy));

/** Parameters in a random order: the draft gives them none. */
function shuffled(params: [string, sf.BareItem][], seed: number): sf.Parameters {
  return new Map(
    params
      .map((p, i) => [p, (i * 7919 + seed) % 101] as const)
      .sort((a, b) => a[1] - b[1])
      .map(([p]) => p),
  );
}

function itemsOf(set: Drawn[], seed: number) {
  const named = (d: Drawn) => (d.asToken ? new sf.Token(d.name) : d.name);
  const pk = (d: Drawn): [string, sf.BareItem][] => (d.pk ? [['pk', d.pk.buffer as ArrayBuffer]] : []);
  const limits: sf.Item[] = set
    .filter((d) => d.inLimit)
    .map((d) => {
      const params: [string, sf.BareItem][] = [['r', d.r], ...pk(d), ...d.vendor];
      if (d.t !== undefined) params.push(['t', d.t]);
      return [named(d), shuffled(params, seed)];
    });
  const policies: sf.Item[] = set
    .filter((d) => d.inPolicy)
    .map((d) => {
      const params: [string, sf.BareItem][] = [['q', d.q], ...pk(d), ...d.vendor];
      if (d.qu !== undefined) params.push(['qu', d.qu]);
      if (d.w !== undefined) params.push(['w', d.w]);
      return [named(d), shuffled(params, seed)];
    });
  return { limits, policies };
}

/** What the policies should read as: RateLimit's order first, then the policies RateLimit leaves out. */
function expected(set: Drawn[]): RateLimitPolicy[] {
  const toPolicy = (d: Drawn, withLimit: boolean): RateLimitPolicy => {
    const policy: RateLimitPolicy = { name: d.name, unit: d.inPolicy ? (d.qu ?? 'requests') : 'requests' };
    if (d.pk) policy.partitionKey = btoa(String.fromCharCode(...d.pk));
    if (d.inPolicy) policy.limit = d.q;
    if (d.inPolicy && d.w !== undefined) policy.window = d.w * 1000;
    if (withLimit) policy.remaining = d.r;
    if (withLimit && d.t !== undefined) policy.effectiveWindow = d.t * 1000;
    return policy;
  };
  return [
    ...set.filter((d) => d.inLimit).map((d) => toPolicy(d, true)),
    ...set.filter((d) => !d.inLimit && d.inPolicy).map((d) => toPolicy(d, false)),
  ];
}

/** The list written as one field split over `lines` field lines, as a server appending per layer would. */
function appended(headers: Headers, name: string, items: sf.Item[], lines: number): void {
  const size = Math.max(1, Math.ceil(items.length / lines));
  for (let i = 0; i < items.length; i += size) headers.append(name, sf.serializeList(items.slice(i, i + size)));
}

// Thousands of generated cases: seconds on a busy machine, past vitest's 5 s default.
describe('RateLimit fields written by structured-headers', { timeout: 60_000 }, () => {
  it('read back as the policies they were written from: names as Strings or Tokens, any parameter order, split over lines', () => {
    fc.assert(
      fc.property(drawnSet, fc.nat(), fc.integer({ min: 1, max: 3 }), (set, seed, lines) => {
        const { limits, policies } = itemsOf(set, seed);
        const headers = new Headers();
        appended(headers, 'RateLimit', limits, lines);
        appended(headers, 'RateLimit-Policy', policies, lines);
        const state = readRateLimit(headers, 0);
        expect(state.ignored).toBeUndefined();
        expect(state.policies).toEqual(expected(set));
      }),
      { numRuns: 1000 },
    );
  });

  it('once mangled, parse as structured-headers parses them, and are ignored whole when it rejects them', () => {
    // No '@': structured-headers 2.1.0 reads a Date up to the end of the field, so it refuses `@1, a`.
    const edit = fc.record({
      at: fc.nat(),
      cut: fc.integer({ min: 0, max: 3 }),
      insert: fc.stringMatching(/^[a-z0-9"();=,:?* \t\\.%-]{0,3}$/),
    });
    fc.assert(
      fc.property(drawnSet, fc.nat(), fc.array(edit, { minLength: 1, maxLength: 3 }), (set, seed, edits) => {
        let raw = sf.serializeList(itemsOf(set, seed).limits);
        for (const { at, cut, insert } of edits) {
          const i = at % (raw.length + 1);
          raw = raw.slice(0, i) + insert + raw.slice(i + cut);
        }
        // What a field value can be once on the wire: fetch's Headers strips the whitespace around it.
        const headers = new Headers({ RateLimit: raw });
        const text = headers.get('ratelimit') as string;
        const theirList = accepts(() => sf.parseList(text));
        const mine = parseList(text);
        expect(mine !== undefined, JSON.stringify(text)).toBe(theirList);
        if (mine !== undefined) expect(mine.map(myMember)).toEqual(sf.parseList(text).map(theirMember));
        const state = readRateLimit(headers, 0);
        if (!theirList && !accepts(() => sf.parseDictionary(text))) {
          expect(state.policies, JSON.stringify(text)).toEqual([]);
          expect(state.ignored, JSON.stringify(text)).toEqual([{ field: 'ratelimit', reason: 'malformed' }]);
        }
      }),
      { numRuns: 5000 },
    );
  });
});
