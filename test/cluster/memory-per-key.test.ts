import {
  type Algorithm,
  concurrency,
  createLimiter,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingLog,
  slidingWindow,
  tokenBucket,
} from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { type Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limiterKey } from '../redis/fixtures/client.ts';
import { type RedisCluster, startCluster } from '../helpers/redis-cluster.ts';
import { connectCluster } from '../helpers/redis-cluster-client.ts';
import { type RedisServer, startRedis } from '../helpers/redis-server.ts';
import { contextOf } from '../helpers/context.ts';

const WINDOW = 60_000;
const ipOf = (item: Case) => `203.0.113.${CASES.indexOf(item) + 1}`;
const START = 1_800_000_000_000;

/** One row of the "Memory per key" table in packages/redis/README.md: the algorithm, the requests that shape a typical key, and a regression bound. */
interface Case {
  name: string;
  algorithm: Algorithm;
  requests: string;
  /** Clock readings of the requests made before measuring. */
  times: number[];
  maxBytes: number;
}

const CASES: Case[] = [
  {
    name: 'fixedWindow',
    algorithm: fixedWindow({ limit: 100, window: WINDOW }),
    requests: 'limit 100 per 1m; 1 request',
    times: [START],
    maxBytes: 160,
  },
  {
    name: 'slidingLog',
    algorithm: slidingLog({ limit: 100, window: WINDOW }),
    requests: 'limit 100 per 1m; 100 requests (100 entries)',
    times: Array.from({ length: 100 }, (_, i) => START + i),
    maxBytes: 8_000,
  },
  {
    // Past zset-max-listpack-entries (128) the log becomes a skiplist: several times the bytes per entry.
    name: 'slidingLog',
    algorithm: slidingLog({ limit: 1000, window: WINDOW }),
    requests: 'limit 1000 per 1m; 1000 requests (1000 entries)',
    times: Array.from({ length: 1000 }, (_, i) => START + i),
    maxBytes: 200_000,
  },
  {
    name: 'slidingWindow',
    algorithm: slidingWindow({ limit: 100, window: WINDOW }),
    requests: 'limit 100 per 1m; 2 requests a window apart (both counters set)',
    times: [START, START + WINDOW],
    maxBytes: 200,
  },
  {
    name: 'tokenBucket',
    algorithm: tokenBucket({ capacity: 100, refillRate: 10 }),
    requests: 'capacity 100, 10/s; 1 request',
    times: [START],
    maxBytes: 200,
  },
  {
    name: 'leakyBucket',
    algorithm: leakyBucket({ capacity: 100, leakRate: 10, mode: 'policing' }),
    requests: 'capacity 100, 10/s, policing; 1 request',
    times: [START],
    maxBytes: 200,
  },
  {
    name: 'gcra',
    algorithm: gcra({ rate: 100, period: WINDOW, burst: 10 }),
    requests: '100 per 1m, burst 10; 1 request',
    times: [START],
    maxBytes: 200,
  },
  {
    name: 'concurrency',
    algorithm: concurrency({ max: 100, lease: '30s' }),
    requests: 'max 100, lease 30s; 10 requests (10 leases held)',
    times: Array.from({ length: 10 }, () => START),
    maxBytes: 2_000,
  },
];

interface Measurement {
  bytes: number;
  encoding: string;
  type: string;
  pttl: number;
}

/** Runs a case's requests through a limiter on `client`, then measures its one key on `node`. */
async function measure(client: Redis | Cluster, node: Redis, item: Case): Promise<Measurement> {
  let now = 0;
  const limiter = createLimiter({
    store: new RedisStore({ client, clock: () => now }),
    clock: () => now,
    prefix: 'fg',
    timeout: 2000,
    limits: [{ name: 'ip', key: (ctx) => ctx.ip, algorithm: item.algorithm }],
  });
  // A typical key: an IPv4 identity under the default prefix, e.g. fg:ip:fw.590ab6:{203.0.113.7}.
  const ip = ipOf(item);
  for (const time of item.times) {
    now = time;
    const decision = await limiter.consume(contextOf({ ip }));
    expect(decision).toMatchObject({ allowed: true, degraded: false });
  }
  const key = limiterKey('fg', 'ip', item.algorithm, ip);
  const [bytes, encoding, type, pttl] = await Promise.all([
    node.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'),
    node.call('OBJECT', 'ENCODING', key),
    node.call('TYPE', key),
    node.call('PTTL', key),
  ]);
  return { bytes: Number(bytes), encoding: String(encoding), type: String(type), pttl: Number(pttl) };
}

let server: RedisServer;
let standalone: Redis;
let cluster: RedisCluster;
let clusterClient: Cluster;
beforeAll(async () => {
  [server, cluster] = await Promise.all([startRedis(), startCluster()]);
  standalone = new Redis({ port: server.port, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  await standalone.connect();
  clusterClient = await connectCluster(cluster);
});
afterAll(async () => {
  standalone?.disconnect();
  clusterClient?.disconnect();
  await Promise.all([server?.stop(), cluster?.stop()]);
});

describe('memory per key', () => {
  it('stays small for every algorithm, on one node and on a cluster master, and every key expires', async () => {
    const version = String(await standalone.call('INFO', 'server')).match(/redis_version:(\S+)/)?.[1];
    const rows = [`Redis ${version}; bytes from MEMORY USAGE <key> SAMPLES 0.`, ''];
    rows.push('| algorithm | options; requests before measuring | type (encoding) | standalone | cluster master |');
    rows.push('|---|---|---|---:|---:|');
    for (const item of CASES) {
      const alone = await measure(standalone, standalone, item);
      const master = await cluster.masterOf(`fg:ip:{${ipOf(item)}}`);
      const admin = new Redis({ port: master.port, lazyConnect: true, maxRetriesPerRequest: 0 });
      await admin.connect();
      const clustered = await measure(clusterClient, admin, item).finally(() => admin.disconnect());
      rows.push(
        `| ${item.name} | ${item.requests} | ${alone.type} (${alone.encoding}) | ${alone.bytes} | ${clustered.bytes} |`,
      );
      for (const measured of [alone, clustered]) {
        expect(measured.bytes, item.name).toBeGreaterThan(0);
        expect(measured.bytes, item.name).toBeLessThanOrEqual(item.maxBytes);
        expect(measured.pttl, `${item.name} has a TTL`).toBeGreaterThan(0);
      }
    }
    console.log(rows.join('\n'));
  });
});
