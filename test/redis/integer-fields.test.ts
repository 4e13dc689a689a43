import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow, gcra, leakyBucket, slidingWindow, tokenBucket } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { ALGORITHM_FACTORIES } from './fixtures/algorithms.ts';
import { freshPrefix, keysUnder, layerKey, limiterKey, storedKey } from './fixtures/client.ts';
import { runSeed, seededRandom } from './fixtures/random.ts';
import { useRedis } from './fixtures/suite.ts';
import type { Algorithm } from '@floodgate/core';
import type { Redis } from 'ioredis';
import { contextOf } from '../helpers/context.ts';

/** One layer of a store call (typed from RedisStore, so the test does not depend on where core exports it). */
type LayerCall = Parameters<RedisStore['consume']>[0][number];

/**
 * Catalogue B26: the state Redis keeps for the hash-backed algorithms is whole numbers only. A float
 * (`0.5`), an exponent (`1e+15`) or a negative written by a script would be a drift the TypeScript
 * model cannot have, and the next script run would reset the key (helpers.lua, stored_number).
 */

const suite = useRedis();

/** The fields each hash-backed algorithm writes (lua/*.lua headers). */
const FIELDS: Record<string, readonly string[]> = {
  fixedWindow: ['start', 'count'],
  slidingWindow: ['start', 'curr', 'prev'],
  tokenBucket: ['level', 'at'],
  leakyBucket: ['level', 'at'],
  gcra: ['level', 'at'],
};

const duration = fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 100_000_000_000 }));
const count = fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 1_000_000 }));
const rate = fc.constantFrom(0.000001, 0.001, 0.25, 0.5, 1, 3.25, 7.5, 1000, 1_000_000);

/** Random configurations of the five hash-backed algorithms over wide ranges; refused ones are filtered out. */
const configurations: fc.Arbitrary<() => Algorithm> = fc.oneof(
  fc.record({ limit: count, window: duration }).map((o) => () => fixedWindow(o)),
  fc.record({ limit: count, window: duration }).map((o) => () => slidingWindow(o)),
  fc.record({ capacity: count, refillRate: rate }).map((o) => () => tokenBucket(o)),
  fc
    .record({ capacity: count, leakRate: rate, mode: fc.constantFrom('policing' as const, 'shaping' as const) })
    .map((o) => () => leakyBucket(o)),
  fc.record({ rate: count, period: duration, burst: fc.integer({ min: 0, max: 1_000_000 }) }).map((o) => () => gcra(o)),
);

function build(make: () => Algorithm): Algorithm | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

/** One step: which layers (by index), which identity, the cost (reduced modulo each maxCost + 1), a clock move, refund or consume. */
const step = fc.record({
  layers: fc.uniqueArray(fc.nat({ max: 2 }), { minLength: 1, maxLength: 3 }),
  identity: fc.nat({ max: 2 }),
  cost: fc.oneof(fc.nat({ max: 3 }), fc.nat({ max: 2_000_000 })),
  advance: fc.oneof(
    fc.nat({ max: 50 }),
    fc.nat({ max: 100_000 }),
    fc.nat({ max: 100_000_000_000 }),
    fc.constant(-1_000),
  ),
  refund: fc.boolean(),
});

/** Every field of every key under `prefix` that is not a decimal integer, and every field that is not the algorithm's. */
async function badFields(client: Redis, prefix: string): Promise<{ key: string; field: string; value: string }[]> {
  const bad: { key: string; field: string; value: string }[] = [];
  for (const key of await keysUnder(client, prefix)) {
    const type = await client.type(key);
    if (type === 'none') continue;
    if (type !== 'hash') {
      bad.push({ key, field: '(type)', value: type });
      continue;
    }
    const kind = Object.keys(FIELDS).find((name) => key.includes(`:${name}:`));
    for (const [field, value] of Object.entries(await client.hgetall(key))) {
      if (!/^\d+$/.test(value) || (kind !== undefined && !FIELDS[kind]?.includes(field))) {
        bad.push({ key, field, value });
      }
    }
  }
  return bad;
}

describe('hash fields in Redis (catalogue B26)', () => {
  it('the check has teeth: a float, an exponent, a negative or a foreign field is reported', async () => {
    const prefix = freshPrefix('int-fields-control');
    const key = storedKey(prefix, layerKey('fixedWindow', 'x'));
    await suite.client.hset(key, 'start', '1000', 'count', '3');
    expect(await badFields(suite.client, prefix)).toEqual([]);
    await suite.client.hset(key, 'count', '0.5', 'start', '1e+15', 'extra', '1');
    await suite.client.hset(storedKey(prefix, layerKey('gcra', 'y')), 'level', '-1', 'at', '7');
    expect(await badFields(suite.client, prefix)).toEqual(
      expect.arrayContaining([
        { key, field: 'count', value: '0.5' },
        { key, field: 'start', value: '1e+15' },
        { key, field: 'extra', value: '1' },
        { key: storedKey(prefix, layerKey('gcra', 'y')), field: 'level', value: '-1' },
      ]),
    );
    await suite.client.del(key, storedKey(prefix, layerKey('gcra', 'y')));
  });

  it('are decimal integers after a random mixed workload of consumes and refunds through RedisStore', async () => {
    const family = freshPrefix('int-fields');
    let runs = 0;
    let keysSeen = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(configurations, { minLength: 3, maxLength: 3 }),
        fc.integer({ min: 0, max: 2 ** 43 }),
        fc.array(step, { minLength: 1, maxLength: 12 }),
        async (makers, start, steps) => {
          const algorithms = makers.map(build);
          fc.pre(algorithms.every((algorithm) => algorithm !== undefined));
          runs += 1;
          let now = start;
          const prefix = `${family}${runs}:`;
          const store = new RedisStore({ client: suite.client, prefix, clock: () => now });
          for (const [i, { layers, identity, cost, advance, refund }] of steps.entries()) {
            now = Math.max(0, now + advance);
            const calls: LayerCall[] = layers.map((index) => {
              const algorithm = algorithms[index] as Algorithm;
              // The kind in the rule name lets the check know which fields the key may hold.
              const key = layerKey(`${algorithm.kind}:r${index}`, `id${identity}`);
              return { key, algorithm, cost: cost % (algorithm.maxCost + 1) };
            });
            if (refund) await store.refund(calls, `r${i - 1}`);
            else await store.consume(calls, `r${i}`);
          }
          const keys = await keysUnder(suite.client, prefix);
          keysSeen += keys.length;
          expect(await badFields(suite.client, prefix)).toEqual([]);
          if (keys.length > 0) await suite.client.del(...keys);
        },
      ),
      { numRuns: 300 },
    );
    // The workload wrote state: most runs consume before they refund.
    expect(runs).toBeGreaterThan(100);
    expect(keysSeen).toBeGreaterThan(runs);
  });

  it('are decimal integers after 5,000 seeded limiter calls over layered rules of every hash-backed algorithm', async () => {
    const seed = runSeed();
    const random = seededRandom(seed);
    const prefix = freshPrefix('int-fields-limiter').slice(0, -1).replaceAll(':', '.');
    let now = Date.UTC(2030, 0, 1) + random.int(0, 1_000_000);
    const kinds = Object.keys(FIELDS) as (keyof typeof ALGORITHM_FACTORIES)[];
    const limits = kinds.map((kind) => ({
      name: kind,
      key: (ctx: { ip: string | undefined }) => ctx.ip,
      algorithm: ALGORITHM_FACTORIES[kind](random, 1000),
    }));
    const limiter = createLimiter({
      store: new RedisStore({ client: suite.client, clock: () => now }),
      prefix,
      limits,
      denyCache: false,
    });
    const identities = ['198.51.100.1', '198.51.100.2', '198.51.100.3', '2001:db8::1'];
    const maxCost = Math.min(...limits.map((rule) => rule.algorithm.maxCost));
    for (let i = 0; i < 5000; i++) {
      now += random.pick([0, 0, 1, 7, 50, 333, 2500]);
      const ctx = contextOf({ ip: random.pick(identities) });
      const cost = random.int(0, maxCost);
      if (random.chance(0.25)) await limiter.refund(ctx, { cost });
      else await limiter.consume(ctx, { cost });
    }
    const keys = await keysUnder(suite.client, prefix);
    // Each identity's state under each rule (what has not expired yet), in the key shape the limiter writes.
    const expected = limits.flatMap((rule) =>
      identities.map((ip) => limiterKey(prefix, rule.name, rule.algorithm, ip)),
    );
    expect(keys.length, `seed ${seed}`).toBeGreaterThan(0);
    expect(
      keys.filter((key) => !expected.includes(key)),
      `seed ${seed}`,
    ).toEqual([]);
    expect(await badFields(suite.client, prefix), `seed ${seed}`).toEqual([]);
    // The prefix is not one freshPrefix handed out (a limiter prefix may not hold ':'): delete its keys here.
    await suite.client.del(...keys);
  });
});
