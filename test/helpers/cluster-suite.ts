import { afterAll, beforeAll } from 'vitest';
import { connectCluster } from './redis-cluster-client.ts';
import { type RedisCluster, startCluster } from './redis-cluster.ts';
import type { Cluster } from 'ioredis';

/** What a cluster suite reads once its beforeAll has run. */
export interface ClusterSuite {
  /** The private cluster (3 masters, 3 replicas) started for this file. */
  readonly cluster: RedisCluster;
  /** A cluster client with the recommended settings (see connectCluster). */
  readonly client: Cluster;
}

/**
 * Registers the beforeAll/afterAll of a cluster suite: a private cluster and a client connected
 * to it, disconnected and stopped after the file's tests. Call once at the top of a test file and
 * read `cluster`/`client` inside tests and hooks.
 *
 * @example const suite = useCluster(); it('…', () => expect(suite.cluster.masters()).toHaveLength(3));
 */
export function useCluster(): ClusterSuite {
  let cluster: RedisCluster | undefined;
  let client: Cluster | undefined;
  beforeAll(async () => {
    cluster = await startCluster();
    client = await connectCluster(cluster);
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });
  return {
    get cluster() {
      return setUp(cluster);
    },
    get client() {
      return setUp(client);
    },
  };
}

function setUp<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('useCluster: read the suite inside a test or hook, after beforeAll');
  return value;
}
