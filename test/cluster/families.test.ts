import { fixedWindow } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { describe, expect, it } from 'vitest';
import { useCluster } from '../helpers/cluster-suite.ts';
import { freshPrefix } from '../helpers/redis-cluster-client.ts';
import { storedKey } from '../redis/fixtures/client.ts';
import { CLIENT_FAMILIES } from '../redis/fixtures/families.ts';
import { useFamilyClusterClient } from '../redis/fixtures/family-suite.ts';
import type { ClusterNode } from '../helpers/redis-cluster.ts';

/**
 * What a Cluster adds for each client family RedisStore takes (ioredis included, as the
 * reference): the store names each key's master for the limiter's per-master breakers, finds the
 * scripts again after SCRIPT FLUSH on every master, and loads its Functions library on every
 * master. Slot groups with refunds and hash tags: layers.test.ts; failover: failover.test.ts.
 */
const suite = useCluster();

/** One identity whose keys live on each master, as the cluster itself reports. */
async function identityPerMaster(prefix: string): Promise<{ id: string; key: string; master: ClusterNode }[]> {
  const found = new Map<number, { id: string; key: string; master: ClusterNode }>();
  for (let i = 0; found.size < 3 && i < 200; i++) {
    const key = `fg:ip:{id-${i}}`;
    const master = await suite.cluster.masterOf(storedKey(prefix, key));
    if (!found.has(master.port)) found.set(master.port, { id: `id-${i}`, key, master });
  }
  return [...found.values()];
}

const algorithm = fixedWindow({ limit: 10, window: '1h' });

describe.each(CLIENT_FAMILIES)('RedisStore over a %s Cluster', (family) => {
  const store = useFamilyClusterClient(
    family,
    () => suite.cluster.startupNodes,
    () => suite.client,
  );

  it("partitionOf names the master that serves each key (the limiter's breaker per master)", async () => {
    const prefix = freshPrefix(`partition-${family}`);
    const redis = new RedisStore({ client: store.client, prefix });
    const spread = await identityPerMaster(prefix);
    expect(spread).toHaveLength(3);
    for (const { key, master } of spread) {
      // Valkey GLIDE's adapter reads CLUSTER SLOTS on first use: 'unassigned' until it has.
      const deadline = Date.now() + 2000;
      while (redis.partitionOf(key) === 'unassigned' && Date.now() < deadline) await sleep(20);
      expect(redis.partitionOf(key)).toBe(`${master.host}:${master.port}`);
    }
    // CONFIG GET went to every master and was read.
    expect(await redis.checkEvictionPolicy()).toBe('noeviction');
  });

  it('finds its script again after SCRIPT FLUSH on every master, with no error', async () => {
    const prefix = freshPrefix(`flush-${family}`);
    const redis = new RedisStore({ client: store.client, prefix });
    const spread = await identityPerMaster(prefix);
    for (const { key } of spread)
      expect((await redis.consume([{ key, algorithm, cost: 1 }], 'a'))[0]?.remaining).toBe(9);
    await Promise.all(suite.cluster.masters().map((master) => suite.cluster.command(master, 'SCRIPT', 'FLUSH')));
    for (const { key } of spread)
      expect((await redis.consume([{ key, algorithm, cost: 1 }], 'b'))[0]?.remaining).toBe(8);
  });

  it("scripts: 'function' loads the library on every master, and again on one that lost it", async () => {
    const prefix = freshPrefix(`fn-${family}`);
    const redis = new RedisStore({ client: store.client, prefix, scripts: 'function' });
    const spread = await identityPerMaster(prefix);
    for (const { key } of spread)
      expect((await redis.consume([{ key, algorithm, cost: 1 }], 'a'))[0]?.remaining).toBe(9);
    for (const master of suite.cluster.masters()) {
      expect(await suite.cluster.command(master, 'FUNCTION', 'LIST'), `master ${master.port}`).not.toEqual([]);
    }
    const [lost] = spread;
    if (lost === undefined) throw new Error('no identity found');
    await suite.cluster.command(lost.master, 'FUNCTION', 'FLUSH');
    const [again] = await redis.consume([{ key: lost.key, algorithm, cost: 1 }], 'b');
    expect(again).toMatchObject({ allowed: true, remaining: 8 });
    expect(await suite.cluster.command(lost.master, 'FUNCTION', 'LIST')).not.toEqual([]);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
