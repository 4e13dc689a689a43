import { describe, expect, it } from 'vitest';
import { useCluster } from '../helpers/cluster-suite.ts';
import { ping } from '../helpers/redis-server.ts';

const suite = useCluster();

describe('redis cluster harness', () => {
  it('runs 3 masters, each with one replica, on private ports with pids it holds', () => {
    expect(suite.cluster.masters()).toHaveLength(3);
    expect(suite.cluster.replicas()).toHaveLength(3);
    for (const master of suite.cluster.masters()) expect(suite.cluster.replicaOf(master).masterId).toBe(master.id);
    for (const node of suite.cluster.nodes) {
      expect(node.port).not.toBe(6379);
      expect(node.pid).toBeGreaterThan(0);
      expect(node.id).toMatch(/^[0-9a-f]{40}$/);
    }
  });

  it('names the master ioredis writes a key to, by key and by slot', async () => {
    await suite.client.set('harness:{owner}', 'here');
    const master = await suite.cluster.masterOf('harness:{owner}');
    expect(await suite.cluster.command(master, 'GET', 'harness:{owner}')).toBe('here');
    const slot = Number(await suite.cluster.command(master, 'CLUSTER', 'KEYSLOT', 'harness:{owner}'));
    expect((await suite.cluster.masterOf(slot)).port).toBe(master.port);
    const others = suite.cluster.masters().filter((node) => node.port !== master.port);
    for (const other of others)
      await expect(suite.cluster.command(other, 'GET', 'harness:{owner}')).rejects.toThrow(/MOVED/);
  });

  it('fails over on request: the replica becomes master and the old master its replica', async () => {
    const master = await suite.cluster.masterOf('harness:{swap}');
    const replica = suite.cluster.replicaOf(master);
    await suite.cluster.failover(replica);
    expect(replica.role).toBe('master');
    expect(master.role).toBe('replica');
    expect(suite.cluster.replicaOf(replica).port).toBe(master.port);
    expect((await suite.cluster.masterOf('harness:{swap}')).port).toBe(replica.port);
  });

  it('lets a replica take over when its master is killed, and takes the master back as a replica', async () => {
    const master = await suite.cluster.masterOf('harness:{crash}');
    const replica = suite.cluster.replicaOf(master);
    await suite.cluster.kill(master);
    await suite.cluster.waitForState('ok');
    expect((await suite.cluster.masterOf('harness:{crash}')).port).toBe(replica.port);
    expect(suite.cluster.masters().map((node) => node.port)).toContain(replica.port);
    expect(suite.cluster.masters().map((node) => node.port)).not.toContain(master.port);

    await suite.cluster.start(master);
    await suite.cluster.waitForState('ok');
    expect(master.role).toBe('replica');
    expect(suite.cluster.replicaOf(replica).port).toBe(master.port);
  });

  it('reports fail when a shard is gone and ok once it is back', async () => {
    const master = await suite.cluster.masterOf('harness:{down}');
    const replica = suite.cluster.replicaOf(master);
    const pids = [master.pid, replica.pid];
    await suite.cluster.kill(replica);
    await suite.cluster.kill(master);
    expect([master.pid, replica.pid]).toEqual([undefined, undefined]);
    expect(await ping(master.port)).toBe(false);
    await suite.cluster.waitForState('fail');

    await suite.cluster.start(master);
    await suite.cluster.start(replica);
    await suite.cluster.waitForState('ok');
    expect(master.pid).toBeGreaterThan(0);
    expect([master.pid, replica.pid]).not.toEqual(pids);
    expect((await suite.cluster.masterOf('harness:{down}')).port).toBe(master.port);
    expect(suite.cluster.replicaOf(master).port).toBe(replica.port);
  });
});
