import calculateSlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import {
  concurrency,
  createLimiter,
  fixedWindow,
  gcra,
  leakyBucket,
  MemoryStore,
  slidingLog,
  slidingWindow,
  tokenBucket,
} from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { contextOf } from '../helpers/context.ts';
import { NASTY_IDENTITIES } from '../hashtags/identities.ts';
import { ALGORITHM_KINDS, ROOMY } from './fixtures/algorithms.ts';
import { freshPrefix, keysUnder, layerKey, storedKey } from './fixtures/client.ts';
import { record, sourceOf } from './fixtures/monitor.ts';
import { useRedis } from './fixtures/suite.ts';
import type { Algorithm, AlgorithmKind, FloodgateWarning } from '@floodgate/core';
import type { LayerCall, Penalty } from '@floodgate/core/store';

const suite = useRedis();
const START = 1_800_000_000_000;
const HOUR = 3_600_000;

/** A RedisStore on a fresh prefix whose clock the test drives through `clock.now`; its warnings kept. */
function drivenStore(name: string) {
  const clock = { now: START };
  const prefix = freshPrefix(name);
  const warnings: FloodgateWarning[] = [];
  const onWarning = (warning: FloodgateWarning) => warnings.push(warning);
  return {
    store: new RedisStore({ client: suite.client, prefix, clock: () => clock.now, onWarning }),
    clock,
    prefix,
    warnings,
  };
}

/** One of each kind with state that lives about a second, to see a block stretch its TTL. */
const SHORT_LIVED: Readonly<Record<AlgorithmKind, () => Algorithm>> = {
  fixedWindow: () => fixedWindow({ limit: 10, window: 1000 }),
  slidingLog: () => slidingLog({ limit: 10, window: 1000 }),
  slidingWindow: () => slidingWindow({ limit: 10, window: 1000 }),
  tokenBucket: () => tokenBucket({ capacity: 10, refillRate: 10 }),
  leakyBucket: () => leakyBucket({ capacity: 10, leakRate: 10 }),
  gcra: () => gcra({ rate: 10, period: 1000, burst: 9 }),
  concurrency: () => concurrency({ max: 10, lease: 1000 }),
};

/**
 * One of each kind whose own wait, once full, is at most 10 s: a 30 s penalty is longer, so it
 * makes the block. Each key lives long enough in Redis' real time for a test that drives the clock.
 */
const MEDIUM: Readonly<Record<AlgorithmKind, () => Algorithm>> = {
  fixedWindow: () => fixedWindow({ limit: 10, window: 9000 }),
  slidingLog: () => slidingLog({ limit: 10, window: 9000 }),
  slidingWindow: () => slidingWindow({ limit: 10, window: 9000 }),
  tokenBucket: () => tokenBucket({ capacity: 10, refillRate: 1 }),
  leakyBucket: () => leakyBucket({ capacity: 10, leakRate: 1 }),
  gcra: () => gcra({ rate: 10, period: 9000, burst: 9 }),
  concurrency: () => concurrency({ max: 10, lease: 9000 }),
};

/** A blocked layer's answer: nothing left until the block ends. */
const blockedUntil = (until: number, now: number, limit = 10) => ({
  allowed: false,
  limit,
  remaining: 0,
  resetAt: until,
  retryAfter: until - now,
  delay: 0,
});

/**
 * One request per 9 s window: a denial's own wait is at most 9 s, shorter than every penalty it meets
 * here, so a penalty's block is the penalty's length (a block lasts at least the algorithm's own
 * wait). Its key lives 9 s in Redis' real time, far longer than a test, while the store's clock
 * jumps: Redis never drops a key that the driven clock still needs.
 */
const tiny = () => fixedWindow({ limit: 1, window: 9000 });

/**
 * Consumes until the layer denies (a new window admits one request first) and returns the
 * length of the block that denial reports, checked against its resetAt.
 */
async function penaltyLength(store: RedisStore | MemoryStore, call: LayerCall, now: number, id: string) {
  for (let i = 0; i < 3; i++) {
    const [outcome] = await store.consume([call], `${id}-${i}`);
    if (outcome !== undefined && !outcome.allowed) {
      expect(outcome.resetAt, id).toBe(now + outcome.retryAfter);
      return outcome.retryAfter;
    }
  }
  throw new Error(`${id}: never denied`);
}

/** The penalties in a row counted in a strikes key (a hash: `n`, and `at` the last one's time). */
async function strikeCount(strikesKey: string): Promise<number> {
  return Number(await suite.client.hget(strikesKey, 'n'));
}

const READS = new Set([
  'hmget',
  'hget',
  'zscore',
  'zcount',
  'zrangebyscore',
  'zrevrangebyscore',
  'pttl',
  'exists',
  'get',
]);

describe('peek', () => {
  it('only reads: every command it runs is a read, and every key keeps its bytes and its expiry', async () => {
    const { store, clock, prefix, warnings } = drivenStore('peek-reads');
    const penalty: Penalty = { duration: 1000, period: HOUR, max: 8000 };
    const calls = ALGORITHM_KINDS.map((kind) => ({
      key: layerKey(kind, 'x'),
      algorithm: ROOMY[kind](),
      cost: 10,
      penalty,
    }));
    await store.consume(calls, 'fill');
    // The first layer is penalised once (a block and a strike), the second blocked by an operator.
    await store.consume([{ ...(calls[0] as LayerCall), cost: 1 }], 'penalised');
    const penaltyEnd = Number(await suite.client.hget(storedKey(prefix, calls[0]?.key as string), 'bu'));
    await store.block([calls[1] as LayerCall], 5000);
    const corrupt = { key: layerKey('corrupt', 'x'), algorithm: fixedWindow({ limit: 3, window: '1h' }), cost: 1 };
    await suite.client.hset(storedKey(prefix, corrupt.key), 'start', 'not a number', 'count', 'nan');
    const snapshot = async () => {
      const keys = (await keysUnder(suite.client, prefix)).sort();
      return Promise.all(
        keys.map(async (key) => [key, await suite.client.dumpBuffer(key), await suite.client.call('PEXPIRETIME', key)]),
      );
    };
    const before = await snapshot();
    expect(before.length).toBe(calls.length + 2);

    clock.now += 10;
    const recording = await record(suite.client);
    const answers = await store.peek([...calls, corrupt], 'peek');
    await recording.sync();
    recording.stop();

    const own = sourceOf(suite.client);
    const fromClient = recording.entries
      .filter((entry) => entry.source === own)
      .map((entry) => entry.args[0]?.toLowerCase());
    expect(fromClient).toEqual(['evalsha']);
    // What scripts ran on our keys (a shared REDIS_URL server may run other suites' scripts).
    const fromScript = recording.entries
      .filter((entry) => entry.source === 'lua' && entry.args[1]?.startsWith(prefix))
      .map((entry) => entry.args[0]?.toLowerCase());
    expect(fromScript.length).toBeGreaterThan(calls.length);
    expect(fromScript.filter((command) => !READS.has(command ?? ''))).toEqual([]);
    expect(await snapshot()).toEqual(before);
    // It answered as consume would: the two blocks, full layers that would be penalised, the corrupt key as new.
    expect(answers[0]).toEqual(blockedUntil(penaltyEnd, clock.now));
    expect(answers[1]).toEqual(blockedUntil(START + 5000, clock.now));
    expect(answers.slice(2, calls.length).every((answer) => !answer.allowed && answer.retryAfter > 0)).toBe(true);
    expect(answers[calls.length]).toMatchObject({ allowed: true, remaining: 2 });
    expect(warnings.map((warning) => warning.code)).toEqual(['WARN_FLOODGATE_KEY_RESET']);
  });

  it('answers each layer at its cost, charges nothing and blocks nothing', async () => {
    const { store, prefix } = drivenStore('peek-basic');
    const penalty: Penalty = { duration: 20_000, period: 0, max: 20_000 };
    const call = {
      key: layerKey('ip', 'p'),
      algorithm: fixedWindow({ limit: 3, window: 9000, reserve: 1 }),
      cost: 2,
      penalty,
    };
    expect(await store.peek([call], 'a')).toEqual([
      { allowed: true, limit: 2, remaining: 0, resetAt: START + 9000, retryAfter: 0, delay: 0 },
    ]);
    expect(await keysUnder(suite.client, prefix)).toEqual([]);
    await store.consume([call], 'charge');
    // Normal requests see limit - reserve: denied; a critical one may use the reserve.
    expect((await store.peek([{ ...call, cost: 1 }], 'b'))[0]).toMatchObject({ allowed: false, remaining: 0 });
    expect((await store.peek([{ ...call, cost: 1, critical: true }], 'c'))[0]).toMatchObject({
      allowed: true,
      remaining: 0,
    });
    // A peek that denies applies no penalty: the same request consumed is penalised for 20 s.
    expect(await keysUnder(suite.client, prefix)).toEqual([storedKey(prefix, call.key)]);
    expect(await penaltyLength(store, { ...call, cost: 1 }, START, 'd')).toBe(20_000);
  });
});

describe('block, unblock, reset', () => {
  it.each(ALGORITHM_KINDS)(
    'a blocked %s key denies every request with the block’s numbers, then has its state back',
    async (kind) => {
      const { store, clock } = drivenStore(`block-${kind}`);
      const call = { key: layerKey('b', kind), algorithm: ROOMY[kind](), cost: 1 };
      expect((await store.consume([call], 'before'))[0]).toMatchObject({ allowed: true, remaining: 9 });
      await store.block([call], 5000);
      clock.now += 1200;
      const probes = [call, { ...call, cost: 0 }, { ...call, critical: true }, { ...call, cost: 10, critical: true }];
      for (const [i, probe] of probes.entries()) {
        expect(await store.consume([probe], `blocked-${i}`)).toEqual([blockedUntil(START + 5000, clock.now)]);
        expect(await store.peek([probe], `peek-${i}`)).toEqual([blockedUntil(START + 5000, clock.now)]);
      }
      clock.now = START + 4999;
      expect((await store.consume([call], 'last'))[0]).toEqual(blockedUntil(START + 5000, clock.now));
      clock.now = START + 5000;
      // ROOMY state outlives the block: the one unit charged before it is still counted.
      expect((await store.consume([call], 'after'))[0]).toMatchObject({ allowed: true, remaining: 8 });
    },
  );

  it.each(ALGORITHM_KINDS)('a block on a %s key keeps the key at least as long as the block', async (kind) => {
    const { store, prefix } = drivenStore(`block-ttl-${kind}`);
    const call = { key: layerKey('t', kind), algorithm: SHORT_LIVED[kind](), cost: 1 };
    await store.consume([call], 'one');
    expect(await suite.client.pttl(storedKey(prefix, call.key))).toBeLessThanOrEqual(2000);
    await store.block([call], 60_000);
    // Counting down in real time since the block: far above the state's own second.
    expect(await suite.client.pttl(storedKey(prefix, call.key))).toBeGreaterThan(50_000);
    expect(await keysUnder(suite.client, prefix)).toEqual([storedKey(prefix, call.key)]);
  });

  it.each(ALGORITHM_KINDS)('unblock lifts a block on a %s key and leaves its state', async (kind) => {
    const { store } = drivenStore(`unblock-${kind}`);
    const call = { key: layerKey('u', kind), algorithm: ROOMY[kind](), cost: 1 };
    await store.consume([call], 'before');
    await store.block([call], HOUR);
    expect((await store.consume([call], 'blocked'))[0]?.allowed).toBe(false);
    await store.unblock([call]);
    expect((await store.consume([call], 'after'))[0]).toMatchObject({ allowed: true, remaining: 8 });
  });

  it.each(ALGORITHM_KINDS)(
    'unblock starts the spent %s quota of a layer with a penalty afresh, in both stores (concurrency keeps the slots in flight)',
    async (kind) => {
      const { store } = drivenStore(`unblock-spent-${kind}`);
      const memory = new MemoryStore({ clock: () => START });
      const penalty: Penalty = { duration: HOUR, period: 0, max: HOUR };
      const call = { key: layerKey('s', kind), algorithm: ROOMY[kind](), cost: 10, penalty };
      for (const each of [store, memory]) {
        await each.consume([call], 'fill');
        await each.unblock([call]);
        const next = (await each.consume([{ ...call, cost: 1 }], 'next'))[0];
        expect(next?.allowed, `${kind} ${each.constructor.name}`).toBe(kind !== 'concurrency');
      }
    },
  );

  it('unblock keeps a quota that is not spent, and the count of a layer without a penalty, in both stores', async () => {
    const { store } = drivenStore('unblock-kept');
    const memory = new MemoryStore({ clock: () => START });
    const penalty: Penalty = { duration: HOUR, period: 0, max: HOUR };
    const algorithm = fixedWindow({ limit: 10, window: '1h', reserve: 2 });
    const partly = { key: layerKey('k', 'x'), algorithm, cost: 7, penalty };
    const plain = { key: layerKey('k', 'y'), algorithm, cost: 8 };
    for (const each of [store, memory]) {
      await each.consume([partly], 'used');
      await each.consume([plain], 'spent');
      await each.unblock([partly, plain]);
      const standing = await each.consume(
        [
          { ...partly, cost: 0 },
          { ...plain, cost: 0 },
        ],
        'standing',
      );
      expect(standing.map((outcome) => outcome.remaining)).toEqual([1, 0]);
    }
  });

  it.each(ALGORITHM_KINDS)('reset deletes a %s key’s state, block and strikes', async (kind) => {
    const { store, prefix } = drivenStore(`reset-${kind}`);
    const penalty: Penalty = { duration: 30_000, period: HOUR, max: 240_000 };
    const call = { key: layerKey('r', kind), algorithm: MEDIUM[kind](), cost: 10, penalty };
    await store.consume([call], 'fill');
    expect(await penaltyLength(store, { ...call, cost: 1 }, START, 'penalised')).toBe(30_000);
    expect(await keysUnder(suite.client, prefix)).toHaveLength(2);
    await store.reset([call]);
    expect(await keysUnder(suite.client, prefix)).toEqual([]);
    expect((await store.consume([call], 'fresh'))[0]).toMatchObject({ allowed: true, remaining: 0 });
    // The strikes went with it: the next penalty is the first again, not a doubled one.
    expect(await penaltyLength(store, { ...call, cost: 1 }, START, 'again')).toBe(30_000);
  });
});

describe('penalties', () => {
  it.each(ALGORITHM_KINDS)(
    'block a %s key its layer denies, whatever comes next, for the penalty’s length',
    async (kind) => {
      const { store, clock, prefix } = drivenStore(`penalty-${kind}`);
      const call = {
        key: layerKey('p', kind),
        algorithm: MEDIUM[kind](),
        cost: 10,
        penalty: { duration: 30_000, period: 0, max: 30_000 },
      };
      await store.consume([call], 'fill');
      expect(await store.consume([{ ...call, cost: 1 }], 'over')).toEqual([blockedUntil(START + 30_000, START)]);
      clock.now += 10_000;
      expect(await store.consume([{ ...call, cost: 0, critical: true }], 'zero')).toEqual([
        blockedUntil(START + 30_000, clock.now),
      ]);
      // Without escalation there is nothing to remember beside the key.
      expect(await keysUnder(suite.client, prefix)).toEqual([storedKey(prefix, call.key)]);
    },
  );

  it.each(ALGORITHM_KINDS)(
    'reports one resetAt for a %s block: the denial that sets it, and every later one',
    async (kind) => {
      const { store, clock } = drivenStore(`one-reset-${kind}`);
      // ROOMY keys replenish over an hour or more: longer than the penalty and than their own wait.
      const call = {
        key: layerKey('o', kind),
        algorithm: ROOMY[kind](),
        cost: 10,
        penalty: { duration: 30_000, period: 0, max: 30_000 },
      };
      await store.consume([call], 'fill');
      const [first] = await store.consume([{ ...call, cost: 1 }], 'penalised');
      clock.now += 1;
      const [later] = await store.consume([{ ...call, cost: 1 }], 'later');
      expect(later).toEqual({ ...first, retryAfter: (first?.retryAfter ?? 0) - 1 });
    },
  );

  it('lasts at least the algorithm’s own wait: a client that waits out its Retry-After is admitted', async () => {
    const { store, clock } = drivenStore('at-least');
    const call = {
      key: layerKey('ip', 'w'),
      algorithm: fixedWindow({ limit: 1, window: '1h' }),
      cost: 1,
      penalty: { duration: 1000, period: HOUR, max: 8000 },
    };
    await store.consume([call], 'one');
    expect(await store.consume([call], 'two')).toEqual([blockedUntil(START + HOUR, START, 1)]);
    clock.now = START + HOUR - 1;
    expect((await store.consume([call], 'early'))[0]).toEqual(blockedUntil(START + HOUR, clock.now, 1));
    clock.now = START + HOUR;
    expect((await store.consume([call], 'after'))[0]?.allowed).toBe(true);
  });

  it('never extends a block: denials during it neither lengthen it nor count as strikes', async () => {
    const { store, clock, prefix } = drivenStore('no-extend');
    const call = {
      key: layerKey('ip', 'n'),
      algorithm: tiny(),
      cost: 1,
      penalty: { duration: 100_000, period: HOUR, max: 6_000_000 },
    };
    await store.consume([call], 'one');
    expect(await penaltyLength(store, call, START, 'first')).toBe(100_000);
    for (const step of [1, 40_000, 99_999]) {
      clock.now = START + step;
      expect(await store.consume([call], `during-${step}`)).toEqual([blockedUntil(START + 100_000, clock.now, 1)]);
    }
    expect(await strikeCount(`${storedKey(prefix, call.key)}!p`)).toBe(1);
    clock.now = START + 100_000;
    // The second penalty, not the fifth: 2 x 100 s.
    expect(await penaltyLength(store, call, clock.now, 'second')).toBe(200_000);

    // An operator's block is not extended by a penalty either, nor does it make a strike.
    const other = { ...call, key: layerKey('ip', 'm') };
    await store.consume([other], 'one');
    await store.block([other], 30_000);
    expect(await store.consume([other], 'denied')).toEqual([blockedUntil(clock.now + 30_000, clock.now, 1)]);
    expect(await suite.client.exists(`${storedKey(prefix, other.key)}!p`)).toBe(0);
  });

  it('escalates: each penalty within the period doubles the last, up to max', async () => {
    const { store, clock } = drivenStore('escalate');
    const call = {
      key: layerKey('ip', 'e'),
      algorithm: tiny(),
      cost: 1,
      penalty: { duration: 10_000, period: HOUR, max: 70_000 },
    };
    await store.consume([call], 'one');
    const lengths: (number | undefined)[] = [];
    for (let i = 0; i < 6; i++) {
      const length = await penaltyLength(store, call, clock.now, `deny-${i}`);
      lengths.push(length);
      clock.now += length ?? 0;
    }
    expect(lengths).toEqual([10_000, 20_000, 40_000, 70_000, 70_000, 70_000]);
  });

  it('a penalty given while the reserve has room outlives the writes of the critical requests it lets through', async () => {
    const { store, clock, prefix } = drivenStore('penalty-reserve');
    const algorithm = fixedWindow({ limit: 5, window: 1000, reserve: 2 });
    const penalty: Penalty = { duration: 30_000, period: 0, max: 30_000 };
    const normal = { key: layerKey('ip', 'r'), algorithm, cost: 3, penalty };
    const critical = { ...normal, cost: 1, critical: true };
    await store.consume([normal], 'fill');
    expect((await store.consume([{ ...normal, cost: 1 }], 'over'))[0]).toEqual(blockedUntil(START + 30_000, START, 3));
    // A new window: the critical request's write sets the key's TTL for a window of 1 s.
    clock.now = START + 1000;
    expect((await store.consume([critical], 'critical'))[0]).toMatchObject({ allowed: true, limit: 5, remaining: 4 });
    expect(await suite.client.pttl(storedKey(prefix, normal.key))).toBeGreaterThan(20_000);
    expect((await store.consume([{ ...normal, cost: 1 }], 'still'))[0]).toEqual(
      blockedUntil(START + 30_000, clock.now, 3),
    );
  });

  it('an operator’s block leaves the strikes; unblock forgets them', async () => {
    const { store, clock } = drivenStore('strikes-control');
    const call = {
      key: layerKey('ip', 's'),
      algorithm: tiny(),
      cost: 1,
      penalty: { duration: 10_000, period: HOUR, max: 1_000_000 },
    };
    await store.consume([call], 'one');
    expect(await penaltyLength(store, call, clock.now, 'first')).toBe(10_000);
    await store.block([call], 5000);
    clock.now += 10_000;
    expect(await penaltyLength(store, call, clock.now, 'second')).toBe(20_000);
    await store.unblock([call]);
    expect(await penaltyLength(store, call, clock.now, 'after-unblock')).toBe(10_000);
  });

  it('never penalises a shadow layer that denies', async () => {
    const { store, prefix } = drivenStore('shadow-penalty');
    const penalty = { duration: 1000, period: HOUR, max: 8000 };
    const shadow = {
      key: layerKey('shadow', 'x'),
      algorithm: fixedWindow({ limit: 1, window: '1d' }),
      cost: 1,
      shadow: true,
      penalty,
    };
    const enforced = { key: layerKey('ip', 'x'), algorithm: fixedWindow({ limit: 5, window: '1d' }), cost: 1, penalty };
    await store.consume([shadow, enforced], 'one');
    const [shadowOutcome, enforcedOutcome] = await store.consume([shadow, enforced], 'two');
    expect(enforcedOutcome).toMatchObject({ allowed: true, remaining: 3 });
    expect(shadowOutcome).toMatchObject({ allowed: false, remaining: 0 });
    expect(shadowOutcome?.retryAfter).not.toBe(1000);
    expect(await suite.client.hget(storedKey(prefix, shadow.key), 'bu')).toBeNull();
    expect((await keysUnder(suite.client, prefix)).sort()).toEqual(
      [storedKey(prefix, enforced.key), storedKey(prefix, shadow.key)].sort(),
    );
  });

  it('strikes expire `period` after the last penalty (Redis’ own clock)', async () => {
    const prefix = freshPrefix('strikes-expire-server');
    const store = new RedisStore({ client: suite.client, prefix });
    const call = {
      key: layerKey('ip', 'x'),
      algorithm: fixedWindow({ limit: 1, window: 20 }),
      cost: 1,
      penalty: { duration: 40, period: 2500, max: 10_000 },
    };
    const strikes = `${storedKey(prefix, call.key)}!p`;
    // Two requests of one turn share a script call and its `now`: one of them is denied whatever
    // the real clock does meanwhile.
    const denial = async (id: string) => {
      const outcomes = await Promise.all([store.consume([call], `${id}-a`), store.consume([call], `${id}-b`)]);
      return outcomes.map(([outcome]) => outcome).find((outcome) => outcome?.allowed === false)?.retryAfter;
    };
    expect(await denial('first')).toBe(40);
    await until(async () => (await store.peek([{ ...call, cost: 0 }], 'p'))[0]?.allowed === true);
    expect(await denial('second')).toBe(80);
    await until(async () => (await suite.client.exists(strikes)) === 0);
    expect(await denial('third')).toBe(40);
  });

  it('strikes expire `period` after the last penalty by the store’s clock, as in MemoryStore', async () => {
    const { store, clock } = drivenStore('strikes-expire-driven');
    const memory = new MemoryStore({ clock: () => clock.now });
    const call = {
      key: layerKey('ip', 'd'),
      algorithm: tiny(),
      cost: 1,
      penalty: { duration: 10_000, period: 100_000, max: 1_000_000 },
    };
    const lengths = { redis: [] as (number | undefined)[], memory: [] as (number | undefined)[] };
    for (const [name, each] of [
      ['redis', store],
      ['memory', memory],
    ] as const) {
      clock.now = START;
      await each.consume([call], 'one');
      lengths[name].push(await penaltyLength(each, call, clock.now, 'first'));
      clock.now += 50_000;
      lengths[name].push(await penaltyLength(each, call, clock.now, 'within'));
      // Past the period since the last penalty, by the clock the store was given.
      clock.now += 100_001;
      lengths[name].push(await penaltyLength(each, call, clock.now, 'after'));
    }
    expect(lengths.memory).toEqual([10_000, 20_000, 10_000]);
    expect(lengths.redis).toEqual(lengths.memory);
  });

  it('a penalty exactly `period` after the last one is not "less than period" later: it starts over', async () => {
    const { store, clock } = drivenStore('strikes-boundary');
    const memory = new MemoryStore({ clock: () => clock.now });
    const call = {
      key: layerKey('ip', 'b'),
      algorithm: tiny(),
      cost: 1,
      penalty: { duration: 10_000, period: 100_000, max: 1_000_000 },
    };
    const lengths = { redis: [] as (number | undefined)[], memory: [] as (number | undefined)[] };
    for (const [name, each] of [
      ['memory', memory],
      ['redis', store],
    ] as const) {
      clock.now = START;
      await each.consume([call], 'one');
      lengths[name].push(await penaltyLength(each, call, clock.now, 'first'));
      clock.now += 99_999;
      lengths[name].push(await penaltyLength(each, call, clock.now, 'within'));
      clock.now += 100_000;
      lengths[name].push(await penaltyLength(each, call, clock.now, 'at-period'));
    }
    expect(lengths).toEqual({ memory: [10_000, 20_000, 10_000], redis: [10_000, 20_000, 10_000] });
  });

  it('reset and unblock forget strikes even when the call carries no penalty, as in MemoryStore', async () => {
    const { store, clock } = drivenStore('strikes-no-penalty');
    const memory = new MemoryStore({ clock: () => clock.now });
    const penalty = { duration: 10_000, period: HOUR, max: 1_000_000 };
    const call = { key: layerKey('ip', 'f'), algorithm: tiny(), cost: 1, penalty };
    const bare = { key: call.key, algorithm: call.algorithm, cost: 1 };
    for (const each of [memory, store]) {
      clock.now = START;
      await each.consume([call], 'one');
      expect(await penaltyLength(each, call, clock.now, 'first')).toBe(10_000);
      await each.reset([bare]);
      await each.consume([call], 'two');
      expect(await penaltyLength(each, call, clock.now, 'after-reset')).toBe(10_000);
      clock.now += 10_000;
      expect(await penaltyLength(each, call, clock.now, 'strike-2')).toBe(20_000);
      await each.unblock([bare]);
      expect(await penaltyLength(each, call, clock.now, 'after-unblock')).toBe(10_000);
    }
  });
});

/** Resolves once `condition` holds, polling the server (no fixed sleep: it waits for the state itself). */
async function until(condition: () => Promise<boolean>, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('the strikes key', () => {
  it('sits on the Cluster slot of its layer’s key, for every identity a limiter is given', async () => {
    const prefix = freshPrefix('strikes-slot');
    const store = new RedisStore({ client: suite.client, prefix, clock: () => START });
    const limiter = createLimiter<string>({
      store,
      clock: () => START,
      prefix: 'slot',
      denyCache: false,
      limits: [
        {
          name: 'ip',
          key: (ctx) => ctx.req,
          scope: 'client',
          algorithm: fixedWindow({ limit: 1, window: '1d' }),
          blockDuration: 1000,
          escalate: { period: '1h', max: '1m' },
        },
      ],
    });
    for (const identity of NASTY_IDENTITIES.filter((each) => each !== '')) {
      const ctx = contextOf({ req: identity });
      await limiter.consume(ctx);
      expect((await limiter.consume(ctx)).allowed).toBe(false);
    }
    const keys = await keysUnder(suite.client, prefix);
    const strikes = keys.filter((key) => key.endsWith('!p'));
    expect(strikes.length).toBe(NASTY_IDENTITIES.length - 1);
    for (const key of strikes) {
      const layer = key.slice(0, -2);
      expect(keys).toContain(layer);
      expect(calculateSlot(key), key).toBe(calculateSlot(layer));
    }
  });

  it('sits on the Cluster slot of a layer key that has no hash tag', async () => {
    const { store, prefix } = drivenStore('strikes-slot-plain');
    const call = {
      key: 'plain-key',
      algorithm: fixedWindow({ limit: 1, window: '1d' }),
      cost: 1,
      penalty: { duration: 100, period: HOUR, max: 1000 },
    };
    await store.consume([call], 'one');
    await store.consume([call], 'two');
    // Wherever the store names it: every key that contains the layer's.
    const [cursor, keys] = await suite.client.scan(
      '0',
      'MATCH',
      `*${storedKey(prefix, 'plain-key')}*`,
      'COUNT',
      100_000,
    );
    expect(cursor).toBe('0');
    expect(keys).toHaveLength(2);
    const [strikes] = keys.filter((key) => key !== storedKey(prefix, call.key));
    expect(calculateSlot(strikes as string)).toBe(calculateSlot(storedKey(prefix, call.key)));
    await suite.client.del(strikes as string);
  });
});
