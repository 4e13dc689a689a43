import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisCluster, startCluster } from '../helpers/redis-cluster.ts';
import { connectCluster } from '../helpers/redis-cluster-client.ts';
import { ping } from '../helpers/redis-server.ts';

let cluster: RedisCluster;
let client: Cluster;
beforeAll(async () => {
  cluster = await startCluster();
  client = await connectCluster(cluster);
});
afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
});

describe('redis cluster harness', () => {
  it('runs 3 masters, each with one replica, on private ports with pids it holds', () => {
    expect(cluster.masters()).toHaveLength(3);
    expect(cluster.replicas()).toHaveLength(3);
    for (const master of cluster.masters()) expect(cluster.replicaOf(master).masterId).toBe(master.id);
    for (const node of cluster.nodes) {
      expect(node.port).not.toBe(6379);
      expect(node.pid).toBeGreaterThan(0);
      expect(node.id).toMatch(/^[0-9a-f]{40}$/);
    }
  });

  it('names the master ioredis writes a key to, by key and by slot', async () => {
    await client.set('harness:{owner}', 'here');
    const master = await cluster.masterOf('harness:{owner}');
    expect(await cluster.command(master, 'GET', 'harness:{owner}')).toBe('here');
    const slot = Number(await cluster.command(master, 'CLUSTER', 'KEYSLOT', 'harness:{owner}'));
    expect((await cluster.masterOf(slot)).port).toBe(master.port);
    const others = cluster.masters().filter((node) => node.port !== master.port);
    for (const other of others) await expect(cluster.command(other, 'GET', 'harness:{owner}')).rejects.toThrow(/MOVED/);
  });

  it('fails over on request: the replica becomes master and the old master its replica', async () => {
    const master = await cluster.masterOf('harness:{swap}');
    const replica = cluster.replicaOf(master);
    await cluster.failover(replica);
    expect(replica.role).toBe('master');
    expect(master.role).toBe('replica');
    expect(cluster.replicaOf(replica).port).toBe(master.port);
    expect((await cluster.masterOf('harness:{swap}')).port).toBe(replica.port);
  });

  it('lets a replica take over when its master is killed, and takes the master back as a replica', async () => {
    const master = await cluster.masterOf('harness:{crash}');
    const replica = cluster.replicaOf(master);
    await cluster.kill(master);
    await cluster.waitForState('ok');
    expect((await cluster.masterOf('harness:{crash}')).port).toBe(replica.port);
    expect(cluster.masters().map((node) => node.port)).toContain(replica.port);
    expect(cluster.masters().map((node) => node.port)).not.toContain(master.port);

    await cluster.start(master);
    await cluster.waitForState('ok');
    expect(master.role).toBe('replica');
    expect(cluster.replicaOf(replica).port).toBe(master.port);
  });

  it('reports fail when a shard is gone and ok once it is back', async () => {
    const master = await cluster.masterOf('harness:{down}');
    const replica = cluster.replicaOf(master);
    const pids = [master.pid, replica.pid];
    await cluster.kill(replica);
    await cluster.kill(master);
    expect([master.pid, replica.pid]).toEqual([undefined, undefined]);
    expect(await ping(master.port)).toBe(false);
    await cluster.waitForState('fail');

    await cluster.start(master);
    await cluster.start(replica);
    await cluster.waitForState('ok');
    expect(master.pid).toBeGreaterThan(0);
    expect([master.pid, replica.pid]).not.toEqual(pids);
    expect((await cluster.masterOf('harness:{down}')).port).toBe(master.port);
    expect(cluster.replicaOf(master).port).toBe(replica.port);
  });
});
