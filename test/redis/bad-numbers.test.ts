import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FloodgateError,
  concurrency,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingLog,
  slidingWindow,
  tokenBucket,
} from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { freshPrefix, keysUnder, layerKey } from './fixtures/client.ts';
import { useRedis } from './fixtures/suite.ts';
import { commandsSentBy, record } from './fixtures/monitor.ts';
import type { Algorithm } from '@floodgate/core';
import type { LayerCall } from '@floodgate/core/store';

const suite = useRedis();

const BAD = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1.5, 2 ** 53, 1e300, '7', undefined];
const good = fixedWindow({ limit: 10, window: '1m' });
const withParams = (params: unknown[]) => ({ ...good, params }) as unknown as Algorithm;

/** Expects a Floodgate error from TypeScript and not one byte sent to Redis. */
async function rejectedBeforeRedis(store: RedisStore, calls: LayerCall[]): Promise<void> {
  let failure: unknown;
  const sent = await commandsSentBy(suite.client, async () => {
    failure = await store.consume(calls, 'r').then(
      () => undefined,
      (error: unknown) => error,
    );
  });
  expect(failure).toBeInstanceOf(FloodgateError);
  expect(sent).toEqual([]);
}

describe('numbers are checked in TypeScript, never in Lua', () => {
  it.each(BAD.concat(-1))('a cost of %s', async (cost) => {
    const store = new RedisStore({ client: suite.client, prefix: freshPrefix('bad-cost'), clock: 'client' });
    await rejectedBeforeRedis(store, [{ key: layerKey('ip', 'a'), algorithm: good, cost: cost as number }]);
  });

  it.each(BAD.concat(-1))('a clock that returns %s', async (value) => {
    const store = new RedisStore({
      client: suite.client,
      prefix: freshPrefix('bad-clock'),
      clock: () => value as number,
    });
    await rejectedBeforeRedis(store, [{ key: layerKey('ip', 'a'), algorithm: good, cost: 1 }]);
  });

  it.each([
    ...BAD.map((value) => [`limit ${String(value)}`, [value, 60_000, 0]] as const),
    ...BAD.map((value) => [`window ${String(value)}`, [10, value, 0]] as const),
    ...BAD.map((value) => [`reserve ${String(value)}`, [10, 60_000, value]] as const),
    ['too few params', [10, 60_000]] as const,
    ['too many params', [10, 60_000, 0, 1]] as const,
  ])('params with %s', async (_, params) => {
    const store = new RedisStore({ client: suite.client, prefix: freshPrefix('bad-params'), clock: 'client' });
    await rejectedBeforeRedis(store, [{ key: layerKey('ip', 'a'), algorithm: withParams([...params]), cost: 1 }]);
  });

  it('an algorithm kind with no Lua twin, and an empty key', async () => {
    const store = new RedisStore({ client: suite.client, prefix: freshPrefix('bad-kind'), clock: 'client' });
    const unknown = { ...good, kind: 'mystery' } as unknown as Algorithm;
    await rejectedBeforeRedis(store, [{ key: layerKey('ip', 'a'), algorithm: unknown, cost: 1 }]);
    await rejectedBeforeRedis(store, [{ key: '', algorithm: good, cost: 1 }]);
  });
});

const duration = fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 100_000_000_000 }));
const count = fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 1_000_000 }));
const rate = fc.constantFrom(0.000001, 0.001, 0.5, 1, 3.25, 1000, 1_000_000);

/** Random configurations over wide ranges; those a factory refuses are filtered out. */
const configurations: fc.Arbitrary<() => Algorithm> = fc.oneof(
  fc.record({ limit: count, window: duration }).map((o) => () => fixedWindow(o)),
  fc.record({ limit: fc.integer({ min: 1, max: 50 }), window: duration }).map((o) => () => slidingLog(o)),
  fc.record({ limit: count, window: duration }).map((o) => () => slidingWindow(o)),
  fc.record({ capacity: count, refillRate: rate }).map((o) => () => tokenBucket(o)),
  fc
    .record({ capacity: count, leakRate: rate, mode: fc.constantFrom('policing' as const, 'shaping' as const) })
    .map((o) => () => leakyBucket(o)),
  fc.record({ rate: count, period: duration, burst: fc.integer({ min: 0, max: 1_000_000 }) }).map((o) => () => gcra(o)),
  fc.record({ max: fc.integer({ min: 1, max: 50 }), lease: duration }).map((o) => () => concurrency(o)),
);

function build(make: () => Algorithm): Algorithm | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

describe('TTL of every key written', () => {
  it('is an integer in [1, 2^53) over random configurations, costs and clocks', async () => {
    // MONITOR shows the PEXPIRE each script runs, with the exact argument Redis received.
    const recording = await record(suite.client);
    const family = freshPrefix('ttl-property');
    let runs = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          configurations,
          fc.integer({ min: 0, max: 2 ** 43 }),
          fc.array(fc.tuple(fc.nat({ max: 1_000_000 }), fc.nat({ max: 100_000 }), fc.boolean()), {
            minLength: 1,
            maxLength: 6,
          }),
          async (make, start, steps) => {
            const algorithm = build(make);
            fc.pre(algorithm !== undefined);
            runs += 1;
            let now = start;
            const prefix = `${family}${runs}:`;
            const store = new RedisStore({ client: suite.client, prefix, clock: () => now });
            for (const [i, [cost, advance, refund]] of steps.entries()) {
              const units = cost % ((algorithm as Algorithm).maxCost + 1);
              const call = { key: layerKey('p', 'x'), algorithm: algorithm as Algorithm, cost: units };
              now += advance;
              if (refund) await store.refund([call], `r${i - 1}`);
              else await store.consume([call], `r${i}`);
            }
            for (const key of await keysUnder(suite.client, prefix)) {
              expect(await suite.client.pttl(key), `${key} has no TTL`).not.toBe(-1);
            }
          },
        ),
        { numRuns: 300 },
      );
      await recording.sync();
    } finally {
      recording.stop();
    }
    const expiries = recording.entries.filter(
      ({ args, source }) => source === 'lua' && /^pexpire$/i.test(args[0] ?? '') && args[1]?.startsWith(family),
    );
    expect(expiries.length).toBeGreaterThan(runs);
    for (const { args } of expiries) {
      const ttl = Number(args[2]);
      expect({
        key: args[1],
        ttl: args[2],
        valid: /^\d+$/.test(args[2] ?? '') && ttl >= 1 && ttl < 2 ** 53,
      }).toMatchObject({
        valid: true,
      });
    }
  });
});
