import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { connectCluster } from '../helpers/redis-cluster-client.ts';
import { startCluster, type ClusterNode, type RedisCluster } from '../helpers/redis-cluster.ts';
import {
  at,
  boundFor,
  expectAnswered,
  expectBounded,
  expectDegradedOnlyWithin,
  warmUp,
  watch,
} from './support/checks.ts';
import { COOLDOWN, TIMEOUT, useChaosParts } from './support/fixture.ts';
import { runLoad } from './support/load.ts';
import { record, summarize } from './support/report.ts';

const chaos = useChaosParts();
let cluster: RedisCluster;
beforeAll(async () => {
  cluster = await startCluster();
  // Healthy shards keep serving while another has no node left (the default refuses every slot).
  for (const node of cluster.nodes) await cluster.command(node, 'CONFIG', 'SET', 'cluster-require-full-coverage', 'no');
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

async function clusterApp(prefix: string) {
  const client = chaos.disconnectAfter(await connectCluster(cluster, { commandTimeout: 1000 }));
  client.on('error', () => {});
  return chaos.app(client, { prefix, limit: 100_000 });
}

/** `x-client` values whose keys live on each master, found by asking the cluster. */
async function clientsByMaster(prefix: string, count: number): Promise<Map<number, string[]>> {
  const byMaster = new Map<number, string[]>();
  for (let i = 0; i < count; i++) {
    const master = await cluster.masterOf(`${prefix}:client:{c${i}}`);
    byMaster.set(master.port, [...(byMaster.get(master.port) ?? []), `c${i}`]);
  }
  return byMaster;
}

const isNoscript = (error: unknown) => /NOSCRIPT/i.test(String(error));

describe('chaos: Redis Cluster', () => {
  it('9a. kill -9 the master of a hot slot: bounded decisions, degraded only during the failover, no NOSCRIPT', async () => {
    const prefix = 'chaos-failover';
    const app = await clusterApp(prefix);
    const master = await cluster.masterOf(`${prefix}:client:{hot}`);
    await warmUp(app, ['hot']);
    const watching = watch();
    const load = runLoad({ url: app.url, rate: 200, durationMs: 8000, clients: ['hot'] });
    await at(1000);
    const killedAt = performance.now();
    await cluster.kill(master);
    await cluster.waitForState('ok', 15_000);
    const failedOverAt = performance.now();
    const samples = await load;
    const { rejections, loopDelay } = watching.stop();
    await cluster.start(master);

    const redisAgain = app.decisions.find((d) => d.at > failedOverAt && !d.degraded);
    const recovered = Math.round((redisAgain?.at ?? Number.NaN) - failedOverAt);
    const notes = `failover took ${Math.round(failedOverAt - killedAt)} ms; Redis-backed again ${recovered} ms after it; ${app.storeErrors.length} store errors, ${app.storeErrors.filter((e) => isNoscript(e.error)).length} NOSCRIPT`;
    record(summarize('9a. Cluster: kill -9 the master of the hot slot', samples, app.decisions, notes, loopDelay));

    expect(rejections).toEqual([]);
    expectAnswered(samples, app);
    expectBounded(app, boundFor(TIMEOUT));
    expectDegradedOnlyWithin(app, killedAt, failedOverAt + COOLDOWN + 1000);
    expect(recovered).toBeLessThanOrEqual(COOLDOWN + 1000);
    expect(app.storeErrors.filter((e) => isNoscript(e.error))).toEqual([]);
  });

  it('9b. a whole shard lost: healthy shards stay Redis-backed, the rest degrade, a limiter created meanwhile does not hang', async () => {
    await cluster.waitForState('ok', 15_000);
    const prefix = 'chaos-shard';
    const app = await clusterApp(prefix);
    const byMaster = await clientsByMaster(prefix, 60);
    const [lostPort] = [...byMaster.keys()];
    const lost = cluster.masters().find((node) => node.port === lostPort) as ClusterNode;
    const lostClients = new Set(byMaster.get(lost.port));
    const everyone = [...byMaster.values()].flat();
    await warmUp(app, everyone);
    const watching = watch();
    const load = runLoad({ url: app.url, rate: 200, durationMs: 6000, clients: everyone });
    await at(1000);
    const lostAt = performance.now();
    await Promise.all([cluster.kill(cluster.replicaOf(lost)), cluster.kill(lost)]);

    // A limiter created during the outage, its client not ready yet: it must not hang.
    const late = chaos.disconnectAfter(
      new Cluster(cluster.startupNodes, {
        enableOfflineQueue: false,
        maxRedirections: 4,
        redisOptions: { maxRetriesPerRequest: 0, commandTimeout: 1000 },
      }),
    );
    late.on('error', () => {});
    const lateLimiter = createLimiter({
      store: new RedisStore({ client: late }),
      prefix,
      timeout: TIMEOUT,
      limits: [
        {
          name: 'client',
          key: (ctx) => ctx.header('x-client'),
          algorithm: fixedWindow({ limit: 100_000, window: 10_000 }),
        },
      ],
    });
    const lateLatencies: number[] = [];
    for (const name of [[...lostClients][0], everyone.find((c) => !lostClients.has(c))]) {
      const started = performance.now();
      await lateLimiter.consume({ ip: undefined, header: () => name, req: {} });
      lateLatencies.push(performance.now() - started);
    }
    const samples = await load;
    const { rejections, loopDelay } = watching.stop();

    const clientOf = (id: number) => everyone[id % everyone.length] as string;
    const after = app.decisions.filter((d) => d.at > lostAt + 3000);
    const healthyAfter = after.filter((d) => !lostClients.has(clientOf(d.id)));
    const lostAfter = after.filter((d) => lostClients.has(clientOf(d.id)));
    const healthyRedis = healthyAfter.filter((d) => !d.degraded).length;
    const notes = `from 3 s after the loss: healthy-shard decisions Redis-backed ${healthyRedis}/${healthyAfter.length}, lost-shard decisions degraded ${lostAfter.filter((d) => d.degraded).length}/${lostAfter.length}; limiter created during the outage answered in ${lateLatencies.map((ms) => Math.round(ms)).join(' and ')} ms; breaker: ${app.breakerChanges.map((c) => c.to).join(' → ') || 'closed throughout'}`;
    record(summarize('9b. Cluster: a whole shard (master + replica) lost', samples, app.decisions, notes, loopDelay));

    expect(rejections).toEqual([]);
    expectAnswered(samples, app);
    expectBounded(app, boundFor(TIMEOUT));
    expect(Math.max(...lateLatencies)).toBeLessThanOrEqual(boundFor(TIMEOUT));
    expect(lostAfter.length).toBeGreaterThan(0);
    expect(lostAfter.every((d) => d.degraded)).toBe(true);
    expect(healthyAfter.length).toBeGreaterThan(0);
    expect(healthyRedis).toBe(healthyAfter.length);
  });
});
