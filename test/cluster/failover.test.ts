import { createLimiter, type FailMode, fixedWindow, type KeyContext } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import type { Cluster, ClusterOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limiterKey } from '../redis/fixtures/client.ts';
import { type RedisCluster, startCluster } from '../helpers/redis-cluster.ts';
import { connectCluster, freshPrefix } from '../helpers/redis-cluster-client.ts';
import { startLoad } from './tally.ts';
import { contextOf } from '../helpers/context.ts';
import { type ClientFamily, connectFamilyCluster, OTHER_FAMILIES } from '../redis/fixtures/families.ts';

const NOW = 1_800_000_000_000;
// Large enough that nothing is denied while the failover runs; a top-up afterwards fills it exactly.
const LIMIT = 100_000;
const WORKERS = 16;

let cluster: RedisCluster;
const clients: Pick<Cluster, 'disconnect'>[] = [];
beforeAll(async () => {
  cluster = await startCluster();
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await cluster?.stop();
});

/**
 * 16 loops consume one hot key while the replica of its master takes over with CLUSTER FAILOVER;
 * the load runs from 200 decisions before the failover to 500 after it. Then a top-up of
 * `LIMIT - stored` units and one more request show what the limit admits in all.
 */
async function failoverUnderLoad(extra: ClusterOptions, failMode: FailMode, family: ClientFamily = 'ioredis') {
  const other = family === 'ioredis' ? undefined : await connectFamilyCluster(family, cluster.startupNodes);
  const client = other?.client ?? (await connectCluster(cluster, { extra }));
  clients.push(other ? { disconnect: () => void other.close() } : (client as Cluster));
  const prefix = freshPrefix('failover');
  const storeErrors: unknown[] = [];
  const limiter = createLimiter({
    store: new RedisStore({ client, clock: () => NOW, timeout: 5000 }),
    clock: () => NOW,
    prefix,
    // The store's path through the failover is the subject: a generous deadline, no deny cache,
    // and a breaker that never opens (it would turn the rest of the run into local decisions).
    timeout: 5000,
    failMode,
    denyCache: false,
    breaker: { failureThreshold: 1_000_000 },
    onStoreError: ({ error }) => storeErrors.push(error),
    limits: [
      { name: 'user', key: (ctx) => ctx.header('x-user'), algorithm: fixedWindow({ limit: LIMIT, window: '1h' }) },
    ],
  });
  // Each family's own hot identity: each run fails over the master of another slot.
  const hot = family === 'ioredis' ? 'hot' : `hot-${family}`;
  const ctx: KeyContext = contextOf({ headers: { 'x-user': hot } });
  const key = limiterKey(prefix, 'user', fixedWindow({ limit: LIMIT, window: '1h' }), hot);
  const replica = cluster.replicaOf(await cluster.masterOf(key));

  const { tally, stop } = startLoad(() => limiter.consume(ctx), WORKERS);
  await tally.reach(200);
  const started = performance.now();
  await cluster.failover(replica);
  const failoverMs = performance.now() - started;
  await tally.reach(tally.total + 500);
  await stop();

  const promoted = (await cluster.masterOf(key)).port === replica.port;
  const stored = Number(await cluster.command(replica, 'HGET', key, 'count'));
  const topUp = await limiter.consume(ctx, { cost: LIMIT - stored });
  const after = await limiter.consume(ctx);
  const admitted = tally.redisAllowed + tally.degradedAllowed + (topUp.allowed ? LIMIT - stored : 0);
  console.log(
    `${family} ${JSON.stringify(extra)}, failMode ${failMode}: failover ${failoverMs.toFixed(0)} ms, ${tally.total} decisions, ` +
      `${tally.degraded} degraded (${tally.degradedAllowed} allowed), admitted ${admitted} of ${LIMIT}, max latency ${tally.maxLatency.toFixed(0)} ms, store errors: ` +
      JSON.stringify(storeErrors.map(String)),
  );
  return { tally, storeErrors, promoted, stored, topUp, after, admitted };
}

describe('CLUSTER FAILOVER of a hot key under load', () => {
  // Measured on 2 cores (ioredis 5.11.1, Redis 7.0.15): a manual failover takes 0.25-1.6 s here;
  // with the recommended settings about half the runs see 1-7 store errors ("Too many Cluster
  // redirections": MOVED retried at once while the nodes converge, NOSCRIPT on the new master
  // counted as a redirection, "Connection is closed"), and a failover that pauses writes for more
  // than commandTimeout adds "Command timed out". retryDelayOnMoved 50 made them rarer, not gone.
  // None of them ever lost a charge; the bounds below hold in every run.

  it('with the recommended client settings: no rejection, no lost charge, over-admission only by local decisions', async () => {
    const run = await failoverUnderLoad({}, 'local');
    expect(run.tally.rejected).toEqual([]);
    expect(run.tally.denied).toBe(0);
    expect(run.tally.degraded).toBe(run.storeErrors.length);
    expect(run.promoted).toBe(true);
    // The promoted master holds every unit Redis admitted; more only by a call that failed after its
    // script ran (a ghost charge: under-admission, never over-admission).
    expect(run.stored).toBeGreaterThanOrEqual(run.tally.redisAllowed);
    expect(run.stored).toBeLessThanOrEqual(run.tally.redisAllowed + run.storeErrors.length);
    expect(run.topUp).toMatchObject({ allowed: true, degraded: false });
    expect(run.after).toMatchObject({ allowed: false, degraded: false });
    // In all: the limit, plus what the local fallback admitted while Redis could not answer, minus
    // ghost charges. With no store error that is exactly LIMIT.
    expect(run.admitted).toBeLessThanOrEqual(LIMIT + run.tally.degradedAllowed);
    expect(run.admitted).toBeGreaterThanOrEqual(LIMIT - run.storeErrors.length);
  });

  it("with failMode 'closed' (and retryDelayOnMoved 50): never more than the limit in all", async () => {
    const run = await failoverUnderLoad({ retryDelayOnMoved: 50 }, 'closed');
    expect(run.tally.rejected).toEqual([]);
    // A store error is a 503-style deny here, so every admission was charged in Redis.
    expect(run.tally.degradedAllowed).toBe(0);
    expect(run.tally.denied).toBe(run.storeErrors.length);
    expect(run.promoted).toBe(true);
    expect(run.stored).toBeGreaterThanOrEqual(run.tally.redisAllowed);
    expect(run.stored).toBeLessThanOrEqual(run.tally.redisAllowed + run.storeErrors.length);
    expect(run.topUp).toMatchObject({ allowed: true, remaining: 0, degraded: false });
    expect(run.after).toMatchObject({ allowed: false, degraded: false });
    expect(run.admitted).toBeLessThanOrEqual(LIMIT);
    expect(run.admitted).toBeGreaterThanOrEqual(LIMIT - run.storeErrors.length);
  });
});

describe.each(OTHER_FAMILIES)('CLUSTER FAILOVER of a hot key under load, over %s', (family) => {
  it('with the recommended client settings: no rejection, no lost charge, over-admission only by local decisions', async () => {
    const run = await failoverUnderLoad({}, 'local', family);
    expect(run.tally.rejected).toEqual([]);
    expect(run.tally.denied).toBe(0);
    expect(run.tally.degraded).toBe(run.storeErrors.length);
    expect(run.promoted).toBe(true);
    expect(run.stored).toBeGreaterThanOrEqual(run.tally.redisAllowed);
    expect(run.stored).toBeLessThanOrEqual(run.tally.redisAllowed + run.storeErrors.length);
    expect(run.topUp).toMatchObject({ allowed: true, degraded: false });
    expect(run.after).toMatchObject({ allowed: false, degraded: false });
    expect(run.admitted).toBeLessThanOrEqual(LIMIT + run.tally.degradedAllowed);
    expect(run.admitted).toBeGreaterThanOrEqual(LIMIT - run.storeErrors.length);
  });
});
