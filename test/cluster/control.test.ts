import { describe, expect, it } from 'vitest';
import { fixedWindow, MemoryStore, slidingLog, tokenBucket } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { replay } from '../conformance/feature-trace.ts';
import { ALGORITHM_KINDS } from '../redis/fixtures/algorithms.ts';
import { useCluster } from '../helpers/cluster-suite.ts';
import { freshPrefix } from '../helpers/redis-cluster-client.ts';
import { storedKey } from '../redis/fixtures/client.ts';
import type { LayerCall } from '@floodgate/core/store';

const suite = useCluster();
const START = 1_800_000_000_000;
const HOUR = 3_600_000;

/** A RedisStore on the cluster and a MemoryStore, both on a clock the test drives. */
function drivenStores(name: string) {
  const clock = { now: START };
  const prefix = `${freshPrefix(name)}:`;
  const redis = new RedisStore({ client: suite.client, prefix, clock: () => clock.now });
  return { redis, memory: new MemoryStore({ clock: () => clock.now }), clock, prefix };
}

/** Three identities whose keys (`fg:<rule>:{id}` under `prefix`) live on three different masters. */
async function onThreeMasters(prefix: string, rule: string): Promise<string[]> {
  const byMaster = new Map<number, string>();
  for (let i = 0; byMaster.size < 3 && i < 500; i++) {
    const identity = `id-${i}`;
    const { port } = await suite.cluster.masterOf(storedKey(prefix, `fg:${rule}:{${identity}}`));
    if (!byMaster.has(port)) byMaster.set(port, identity);
  }
  if (byMaster.size < 3) throw new Error('no identities found on three masters');
  return [...byMaster.values()];
}

/** Every byte and the expiry of `keys`, read from the masters that own them. */
function snapshot(keys: readonly string[]) {
  return Promise.all(
    keys.map(async (key) => [key, await suite.client.dumpBuffer(key), await suite.client.call('PEXPIRETIME', key)]),
  );
}

/** Runs `calls` on both stores and expects the cluster to answer as MemoryStore does. */
async function bothConsume(stores: { redis: RedisStore; memory: MemoryStore }, calls: LayerCall[], id: string) {
  const expected = await stores.memory.consume(calls, id);
  expect(await stores.redis.consume(calls, id), id).toEqual(expected);
  return expected;
}

describe('control operations and rule flags with layers on different masters', () => {
  it('penalises the layer that denies on its own master, refunds the other, escalates', async () => {
    const stores = drivenStores('penalty');
    const { clock, prefix } = stores;
    const [ip, user] = await onThreeMasters(prefix, 'x');
    const open = { key: `fg:x:{${ip}}`, algorithm: fixedWindow({ limit: 50, window: '1d' }), cost: 1 };
    // Its own wait (at most its 9 s window) is shorter than the penalty, so the block is the
    // penalty's; its key outlives the test in Redis' real time while the store's clock jumps.
    const shut = {
      key: `fg:x:{${user}}`,
      algorithm: fixedWindow({ limit: 1, window: 9000 }),
      cost: 1,
      penalty: { duration: 10_000, period: HOUR, max: 30_000 },
    };
    await bothConsume(stores, [open, shut], 'one');
    const [uncharged, denied] = await bothConsume(stores, [open, shut], 'two');
    expect(uncharged).toMatchObject({ allowed: true, remaining: 49 });
    expect(denied).toMatchObject({ allowed: false, retryAfter: 10_000, resetAt: START + 10_000 });
    clock.now += 4000;
    expect((await bothConsume(stores, [open, shut], 'during'))[1]).toMatchObject({ retryAfter: 6000 });
    let admitted = 1;
    const lengths: number[] = [];
    for (let round = 0; round < 3; round++) {
      clock.now = (await stores.redis.peek([shut], 'p'))[0]?.resetAt ?? 0;
      // The block over, a new window admits one request; the next is denied and penalised again.
      expect((await bothConsume(stores, [open, shut], `admitted-${round}`)).every((o) => o.allowed)).toBe(true);
      admitted += 1;
      lengths.push((await bothConsume(stores, [open, shut], `denied-${round}`))[1]?.retryAfter ?? 0);
    }
    expect(lengths).toEqual([20_000, 30_000, 30_000]);
    // The count stored on the open layer's master is the admitted requests', no more.
    expect(await suite.client.hget(storedKey(prefix, open.key), 'count')).toBe(String(admitted));
    const strikes = `${storedKey(prefix, shut.key)}!p`;
    expect(await suite.client.hget(strikes, 'n')).toBe('4');
    expect((await suite.cluster.masterOf(strikes)).port).toBe(
      (await suite.cluster.masterOf(storedKey(prefix, shut.key))).port,
    );
  });

  it('peeks on every master and writes on none', async () => {
    const stores = drivenStores('peek');
    const { clock, prefix } = stores;
    const [a, b, c] = await onThreeMasters(prefix, 'p');
    const penalty = { duration: 1000, period: HOUR, max: 8000 };
    const calls = [
      { key: `fg:p:{${a}}`, algorithm: slidingLog({ limit: 2, window: '1h' }), cost: 2, penalty },
      { key: `fg:p:{${b}}`, algorithm: tokenBucket({ capacity: 2, refillRate: 0.001 }), cost: 2, penalty },
    ];
    await bothConsume(stores, calls, 'fill');
    await bothConsume(stores, [{ ...(calls[0] as LayerCall), cost: 1 }], 'penalised');
    const fresh = { key: `fg:p:{${c}}`, algorithm: fixedWindow({ limit: 2, window: '1h' }), cost: 1, penalty };
    const keys = [
      storedKey(prefix, calls[0]?.key as string),
      `${storedKey(prefix, calls[0]?.key as string)}!p`,
      storedKey(prefix, calls[1]?.key as string),
      storedKey(prefix, fresh.key),
    ];
    const before = await snapshot(keys);
    clock.now += 10;
    const peeked = [...calls, fresh];
    const answers = await stores.redis.peek(peeked, 'peek');
    expect(answers).toEqual(await stores.memory.peek(peeked, 'peek'));
    expect(answers.map((answer) => answer.allowed)).toEqual([false, false, true]);
    expect(await snapshot(keys)).toEqual(before);
    expect(await suite.client.exists(storedKey(prefix, fresh.key))).toBe(0);
  });

  it('blocks, unblocks and resets keys on every master', async () => {
    const stores = drivenStores('controls');
    const { clock, prefix } = stores;
    const identities = await onThreeMasters(prefix, 'c');
    const penalty = { duration: 100, period: HOUR, max: 8000 };
    const calls = identities.map((id) => ({
      key: `fg:c:{${id}}`,
      algorithm: fixedWindow({ limit: 3, window: '1d' }),
      cost: 1,
      penalty,
    }));
    await bothConsume(stores, calls, 'one');
    for (const store of [stores.redis, stores.memory]) await store.block(calls, 5000);
    clock.now += 1000;
    const blocked = await bothConsume(stores, calls, 'blocked');
    expect(blocked.map((outcome) => outcome.retryAfter)).toEqual([4000, 4000, 4000]);
    for (const store of [stores.redis, stores.memory]) await store.unblock(calls.slice(0, 2));
    const partly = await bothConsume(stores, calls, 'partly');
    expect(partly.map((outcome) => outcome.allowed)).toEqual([true, true, false]);
    for (const store of [stores.redis, stores.memory]) await store.reset(calls);
    const left = await Promise.all(calls.map((call) => suite.client.exists(storedKey(prefix, call.key))));
    expect(left).toEqual([0, 0, 0]);
    const fresh = await bothConsume(stores, calls, 'fresh');
    expect(fresh.map((outcome) => outcome.remaining)).toEqual([2, 2, 2]);
  });

  it('lets a critical request use the reserve of layers on different masters', async () => {
    const stores = drivenStores('critical');
    const [a, b] = await onThreeMasters(stores.prefix, 'r');
    const layer = (id: string, critical: boolean) => ({
      key: `fg:r:{${id}}`,
      algorithm: fixedWindow({ limit: 4, window: '1d', reserve: 2 }),
      cost: 1,
      critical,
    });
    const normal = [layer(a as string, false), layer(b as string, false)];
    const critical = [layer(a as string, true), layer(b as string, true)];
    const admitted = async (calls: LayerCall[], id: string) =>
      (await bothConsume(stores, calls, id)).every((o) => o.allowed);
    expect([await admitted(normal, 'n1'), await admitted(normal, 'n2'), await admitted(normal, 'n3')]).toEqual([
      true,
      true,
      false,
    ]);
    expect([await admitted(critical, 'c1'), await admitted(critical, 'c2'), await admitted(critical, 'c3')]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('reports a shadow layer’s denial when a layer on another master denies the request', async () => {
    const stores = drivenStores('shadow');
    const [a, b] = await onThreeMasters(stores.prefix, 's');
    // `open` and `watch` share a hash tag (one master); `shut` lives on another.
    const open = { key: `fg:open:{${a}}`, algorithm: fixedWindow({ limit: 5, window: '1d' }), cost: 1 };
    const watch = { key: `fg:watch:{${a}}`, algorithm: fixedWindow({ limit: 1, window: '1d' }), cost: 1, shadow: true };
    const shut = { key: `fg:shut:{${b}}`, algorithm: fixedWindow({ limit: 2, window: '1d' }), cost: 1 };
    await bothConsume(stores, [open, watch, shut], 'one');
    const [, watched] = await bothConsume(stores, [open, watch, shut], 'two');
    expect(watched).toMatchObject({ allowed: false, remaining: 0 });
    const [, stillWatched, denied] = await bothConsume(stores, [open, watch, shut], 'three');
    expect(denied?.allowed).toBe(false);
    expect(stillWatched).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('penalises a layer whose key has no hash tag (its strikes key shares the slot)', async () => {
    const stores = drivenStores('plain');
    const call = {
      key: 'plain-key',
      algorithm: fixedWindow({ limit: 1, window: 9000 }),
      cost: 1,
      penalty: { duration: 10_000, period: HOUR, max: 80_000 },
    };
    await bothConsume(stores, [call], 'one');
    expect(await bothConsume(stores, [call], 'two')).toMatchObject([{ allowed: false, retryAfter: 10_000 }]);
    stores.clock.now += 10_000;
    await bothConsume(stores, [call], 'three');
    // The second penalty in a row: the strikes were found again, on the key's slot.
    expect(await bothConsume(stores, [call], 'four')).toMatchObject([{ allowed: false, retryAfter: 20_000 }]);
  });
});

describe('a random trace on the cluster', () => {
  it('gives the outcomes MemoryStore gives, layers on different slots included', async () => {
    const { coverage } = await replay({
      kinds: ALGORITHM_KINDS,
      operations: 2500,
      rules: { strikes: 'long', shadow: 'sometimes' },
      together: false,
      stores: (clock) => ({
        memory: new MemoryStore({ clock }),
        redis: new RedisStore({ client: suite.client, clock, prefix: `${freshPrefix('trace')}:` }),
      }),
    });
    expect(coverage.denied).toBeGreaterThan(50);
    expect(coverage.penalised).toBeGreaterThan(5);
  });
});
