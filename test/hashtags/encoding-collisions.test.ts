import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow, InvalidOptionTypeError, type KeyContext } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { encodeIdentity } from '../../packages/core/src/keys/identity.ts';
import { freshPrefix, keysUnder, limiterKey, storedKey } from '../redis/fixtures/client.ts';
import { useRedis } from '../redis/fixtures/suite.ts';
import { identityArbitrary } from './identities.ts';
import { contextOf } from '../helpers/context.ts';

/**
 * Catalogue B23: two different inputs never share a counter. Unicode forms of one text are
 * different inputs (the limiter does not normalise), and no split of prefix, rule name and identity
 * can be re-read as another: prefixes and rule names cannot hold ':', and the identity is the only
 * thing between the braces, whatever it contains.
 */

const suite = useRedis();

const algorithm = fixedWindow({ limit: 1, window: '1h' });
const ctxOf = (identity: string): KeyContext<string> => contextOf({ req: identity });

/** The key createLimiter builds for `identity` under `prefix` and `rule` (read from onDecision). */
async function keyFor(prefix: string, rule: string, identity: string): Promise<string> {
  let keys: string[] = [];
  const limiter = createLimiter<string>({
    prefix,
    limits: [{ name: rule, key: (ctx) => ctx.req, algorithm }],
    onDecision: (event) => {
      keys = event.keys;
    },
  });
  await limiter.consume(ctxOf(identity));
  expect(keys).toHaveLength(1);
  return keys[0] as string;
}

/** Names createLimiter accepts: 1-64 characters of [A-Za-z0-9._-]. */
const name = fc.string({ unit: fc.constantFrom(...'ab0._-Z'), minLength: 1, maxLength: 6 });

describe('encoding collisions (catalogue B23)', () => {
  it('NFC and NFD forms of one text are different identities, with different keys and counters', async () => {
    const pairs = ['é', 'Ångström', 'ñandú', '한국어', 'ǘ'].map((text) => [
      text.normalize('NFC'),
      text.normalize('NFD'),
    ]);
    for (const [nfc, nfd] of pairs as [string, string][]) {
      expect(nfc).not.toBe(nfd);
      expect(encodeIdentity(nfc)).not.toBe(encodeIdentity(nfd));
    }
    // NFKC folds the ligature, NFC does not: a third form, a third identity.
    expect(encodeIdentity('ﬁle')).not.toBe(encodeIdentity('ﬁle'.normalize('NFKC')));

    // In Redis: the two forms are counted apart, each under its own key.
    const prefix = freshPrefix('nfc').slice(0, -1).replaceAll(':', '.');
    const limiter = createLimiter<string>({
      store: new RedisStore({ client: suite.client }),
      prefix,
      limits: [{ name: 'user', key: (ctx) => ctx.req, algorithm }],
    });
    const [nfc, nfd] = ['José'.normalize('NFC'), 'José'.normalize('NFD')];
    expect((await limiter.consume(ctxOf(nfc))).allowed).toBe(true);
    expect((await limiter.consume(ctxOf(nfd))).allowed).toBe(true);
    expect((await limiter.consume(ctxOf(nfc))).allowed).toBe(false);
    expect((await limiter.consume(ctxOf(nfd))).allowed).toBe(false);
    const keys = await keysUnder(suite.client, prefix);
    expect(keys.sort()).toEqual(
      [
        limiterKey(prefix, 'user', algorithm, encodeIdentity(nfc)),
        limiterKey(prefix, 'user', algorithm, encodeIdentity(nfd)),
      ].sort(),
    );
    await suite.client.del(...keys);
  });

  it('refuses a ":" (and braces) in rule names and prefixes, so the parts of a key cannot shift', () => {
    const rule = (ruleName: string) => ({ name: ruleName, key: () => 'x', algorithm });
    for (const bad of ['a:b', 'a:', ':b', ':', 'a{b}', 'a}', 'a b']) {
      expect(() => createLimiter({ limits: [rule(bad)] }), `rule ${bad}`).toThrow(InvalidOptionTypeError);
      expect(() => createLimiter({ prefix: bad, limits: [rule('ok')] }), `prefix ${bad}`).toThrow(
        InvalidOptionTypeError,
      );
    }
    expect(() => createLimiter({ limits: [rule('a:b')] })).toThrow(/limits\[0\]\.name must be 1-64 characters/);
    expect(() => createLimiter({ prefix: 'fg:a', limits: [rule('b')] })).toThrow(/prefix must be 1-64 characters/);
  });

  it('keeps an identity holding ":" inside the braces: rule a + identity b:c is no key of any other rule', async () => {
    const key = await keyFor('fg', 'a', 'b:c');
    expect(key).toBe(limiterKey('fg', 'a', algorithm, 'b:c'));
    expect(key.slice(key.indexOf('{'))).toBe('{b:c}');
    // The part-boundary pairs of the catalogue: "a:b" + "c" cannot be built, and "a" + "b:c" differs from "a" + "b".
    expect(await keyFor('fg', 'a', 'b:c')).not.toBe(await keyFor('fg', 'a', 'b'));
    expect(await keyFor('fg', 'a', 'b:c')).not.toBe(await keyFor('fg', 'b', 'c'));
    expect(await keyFor('fg', 'a', 'b:c')).not.toBe(await keyFor('fg', 'a.b', 'c'));
  });

  it('never gives two different (prefix, rule, identity) triples one key', async () => {
    const triple = fc.tuple(name, name, identityArbitrary);
    await fc.assert(
      fc.asyncProperty(triple, triple, async ([p1, r1, i1], [p2, r2, i2]) => {
        fc.pre(p1 !== p2 || r1 !== r2 || i1 !== i2);
        const [k1, k2] = [await keyFor(p1, r1, i1), await keyFor(p2, r2, i2)];
        expect(k1).not.toBe(k2);
        // Each key reads back as exactly its own parts: prefix, rule, algorithm tag, then one hash tag.
        for (const [key, p, r, i] of [
          [k1, p1, r1, i1],
          [k2, p2, r2, i2],
        ] as const) {
          const parts = /^([^:{}]+):([^:{}]+):([^:{}]+):\{([^{}]+)\}$/.exec(key);
          expect(parts?.slice(1, 3), key).toEqual([p, r]);
          expect(parts?.[4], key).toBe(encodeIdentity(i));
        }
      }),
      {
        numRuns: 500,
        examples: [
          // Shared prefix with a boundary shifted by one character, identities with ':' in them.
          [
            ['fg', 'a', 'b:c'],
            ['fg', 'a', 'b'],
          ],
          [
            ['fg', 'ab', 'c'],
            ['fg', 'a', 'bc'],
          ],
          [
            ['t1', 'ip', '203.0.113.7'],
            ['t2', 'ip', '203.0.113.7'],
          ],
          [
            ['t', 'a.b', 'c'],
            ['t.a', 'b', 'c'],
          ],
        ],
      },
    );
  });

  it('tenants on one Redis never share a counter: same rule and identity under two prefixes, or two store prefixes', async () => {
    const tenantA = freshPrefix('tenant-a').slice(0, -1).replaceAll(':', '.');
    const tenantB = freshPrefix('tenant-b').slice(0, -1).replaceAll(':', '.');
    const storePrefix = freshPrefix('tenant-store');
    const make = (prefix: string, store: RedisStore) =>
      createLimiter<string>({ store, prefix, limits: [{ name: 'user', key: (ctx) => ctx.req, algorithm }] });
    const plain = new RedisStore({ client: suite.client });
    const limiters = [
      make(tenantA, plain),
      make(tenantB, plain),
      // The same limiter prefix, kept apart by the store's own prefix.
      make(tenantA, new RedisStore({ client: suite.client, prefix: storePrefix })),
    ];
    for (const limiter of limiters) expect((await limiter.consume(ctxOf('user-42'))).allowed).toBe(true);
    for (const limiter of limiters) expect((await limiter.consume(ctxOf('user-42'))).allowed).toBe(false);
    const written = [
      ...(await keysUnder(suite.client, tenantA)),
      ...(await keysUnder(suite.client, tenantB)),
      ...(await keysUnder(suite.client, storePrefix)),
    ];
    expect(written.sort()).toEqual(
      [
        limiterKey(tenantA, 'user', algorithm, 'user-42'),
        limiterKey(tenantB, 'user', algorithm, 'user-42'),
        storedKey(storePrefix, limiterKey(tenantA, 'user', algorithm, 'user-42')),
      ].sort(),
    );
    for (const key of written) expect(await suite.client.hget(key, 'count')).toBe('1');
    await suite.client.del(...written.filter((key) => !key.startsWith(storePrefix)));
  });

  it('never lets two (store prefix, limiter prefix) pairs share a counter: shop + fg is not "" + shopfg (issue 19, item 10)', async () => {
    // Store prefixes may hold ':' (and be empty); limiter prefixes may not. The pairs come in twos
    // that make one string when joined without a separator, the collision the issue found.
    const storePrefix = fc.string({ unit: fc.constantFrom(...'ab:.'), maxLength: 4 });
    const limiterPrefix = fc.string({ unit: fc.constantFrom(...'ab.'), minLength: 1, maxLength: 4 });
    const pair = fc.tuple(storePrefix, limiterPrefix);
    const joinedTheSame = fc
      .tuple(fc.string({ unit: fc.constantFrom(...'ab.'), maxLength: 3 }), limiterPrefix)
      .map(([head, tail]): [[string, string], [string, string]] => [
        [head, tail],
        ['', head + tail],
      ]);
    const stores = new Map<string, RedisStore>();
    const storeFor = (prefix: string) => {
      const store = stores.get(prefix) ?? new RedisStore({ client: suite.client, prefix });
      stores.set(prefix, store);
      return store;
    };
    let run = 0;
    const written: string[] = [];
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.tuple(pair, pair), joinedTheSame), async ([[s1, l1], [s2, l2]]) => {
        fc.pre(s1 !== s2 || l1 !== l2);
        // One identity per run: runs never meet each other's counters.
        const identity = `item10-${process.pid}-${++run}`;
        const limiterFor = (store: string, prefix: string) =>
          createLimiter<string>({
            store: storeFor(store),
            prefix,
            limits: [{ name: 'user', key: (ctx) => ctx.req, algorithm }],
            onDecision: (event) => {
              written.push(...event.keys.map((key) => storedKey(store, key)));
            },
          });
        const [first, second] = [limiterFor(s1, l1), limiterFor(s2, l2)];
        expect((await first.consume(ctxOf(identity))).allowed).toBe(true);
        expect((await second.consume(ctxOf(identity))).allowed, `${s1}|${l1} vs ${s2}|${l2}`).toBe(true);
        expect((await first.consume(ctxOf(identity))).allowed).toBe(false);
      }),
      {
        numRuns: 150,
        examples: [
          [
            [
              ['shop', 'fg'],
              ['', 'shopfg'],
            ],
          ],
          [
            [
              ['a:', 'b'],
              ['a', 'b'],
            ],
          ],
          [
            [
              ['a', 'b.c'],
              ['a:b', 'c'],
            ],
          ],
        ],
      },
    );
    await suite.client.del(...new Set(written));
  });
});
