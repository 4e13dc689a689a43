import { createLimiter, type Decision, fixedWindow, type KeyContext } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { describe, expect, it } from 'vitest';
import { useCluster } from '../helpers/cluster-suite.ts';
import type { ClusterNode } from '../helpers/redis-cluster.ts';
import { freshPrefix } from '../helpers/redis-cluster-client.ts';
import { NOW } from './limiter.ts';
import { keysOn, scriptRuns } from './node-stats.ts';
import { WitnessedStore } from './witnessed-store.ts';
import { limiterKey } from '../redis/fixtures/client.ts';
import { contextOf } from '../helpers/context.ts';
import { recordStalls, stalledDuring } from '../helpers/loop-stalls.ts';

const suite = useCluster();

const LIMITER_TIMEOUT = 100;
// RedisStore's own bound on each per-slot call: when it passes, the charged groups are refunded.
const STORE_TIMEOUT = 300;
// CLIENT PAUSE freezes one master's clients while its cluster bus runs on, so no failover starts
// (SIGSTOP would let the replica take over after the 1 s node timeout). Long enough that the
// frozen group surely outlives STORE_TIMEOUT; short enough for the client's commandTimeout (1 s).
const PAUSE_MS = 800;
const CONCURRENT = 20;

/** Both layers are fixedWindow({ limit: 1000, window: '1m' }) (see partitionedLimiter). */
const keyOf = (prefix: string, rule: 'ip' | 'user', id: string) =>
  limiterKey(prefix, rule, fixedWindow({ limit: 1000, window: '1m' }), id);

const request = (ip: string, user: string): KeyContext => contextOf({ ip, headers: { 'x-user': user } });

/** Two layers far from their limits: every Redis-backed admission is one charge on each. */
function partitionedLimiter(prefix: string) {
  const store = new WitnessedStore(new RedisStore({ client: suite.client, clock: () => NOW, timeout: STORE_TIMEOUT }));
  const storeErrors: unknown[] = [];
  const limiter = createLimiter({
    store,
    clock: () => NOW,
    prefix,
    timeout: LIMITER_TIMEOUT,
    denyCache: false,
    onStoreError: ({ error }) => storeErrors.push(error),
    limits: [
      { name: 'ip', key: (ctx) => ctx.ip, algorithm: fixedWindow({ limit: 1000, window: '1m' }) },
      { name: 'user', key: (ctx) => ctx.header('x-user'), algorithm: fixedWindow({ limit: 1000, window: '1m' }) },
    ],
  });
  return { limiter, store, storeErrors };
}

/** One request through a limiter with a generous deadline over its own store: the script is then on each master. */
async function warmScript(prefix: string, ip: string, user: string): Promise<void> {
  const warm = createLimiter({
    store: new RedisStore({ client: suite.client, clock: () => NOW }),
    clock: () => NOW,
    prefix: `${prefix}warm`,
    timeout: 5000,
    limits: [
      { name: 'ip', key: (ctx) => ctx.ip, algorithm: fixedWindow({ limit: 1000, window: '1m' }) },
      { name: 'user', key: (ctx) => ctx.header('x-user'), algorithm: fixedWindow({ limit: 1000, window: '1m' }) },
    ],
  });
  expect(await warm.consume(request(ip, user))).toMatchObject({ degraded: false });
}

/** The first `count` identities `<rule>-<i>` whose `rule` key lives on `master`, as the cluster reports. */
async function identitiesOn(prefix: string, rule: 'ip' | 'user', master: ClusterNode, count: number) {
  const found: string[] = [];
  for (let i = 0; found.length < count && i < 50 * count; i++) {
    const id = `${rule}-${i}`;
    if ((await suite.cluster.masterOf(keyOf(prefix, rule, id))).port === master.port) found.push(id);
  }
  if (found.length < count) throw new Error(`only ${found.length} ${rule} identities on ${master.port}`);
  return found;
}

/** Two different masters: the user layer's (to be frozen) and the ip layer's. */
function pickMasters(): { userMaster: ClusterNode; ipMaster: ClusterNode } {
  const [userMaster, ipMaster] = suite.cluster.masters();
  if (userMaster === undefined || ipMaster === undefined) throw new Error('the cluster has fewer than 2 masters');
  return { userMaster, ipMaster };
}

async function countOf(key: string): Promise<number> {
  return Number((await suite.cluster.command(await suite.cluster.masterOf(key), 'HGET', key, 'count')) ?? 0);
}

/**
 * Resolves once the pause of `master` is over and it has run every command the cluster client had
 * sent it: the admin PING is held until the pause ends, and a PING on the client's own connection
 * to that node is answered only after the commands queued ahead of it there.
 */
async function drained(master: ClusterNode): Promise<void> {
  await suite.cluster.command(master, 'PING');
  const connection = suite.client.nodes('master').find((node) => node.options.port === master.port);
  if (connection === undefined) throw new Error(`the cluster client has no connection to ${master.port}`);
  await connection.ping();
}

/** Every key under `prefix` on every master, with its PTTL. */
async function ttlsUnder(prefix: string): Promise<Map<string, number>> {
  const ttls = new Map<string, number>();
  for (const master of suite.cluster.masters()) {
    for (const key of await keysOn(suite.cluster, master, prefix)) {
      ttls.set(key, Number(await suite.cluster.command(master, 'PTTL', key)));
    }
  }
  return ttls;
}

const codes = (errors: readonly unknown[]) => errors.map((error) => (error as { code?: string }).code);
const messages = (errors: readonly unknown[]) => [...new Set(errors.map((error) => (error as Error).message))];
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/** Freezes `master` and runs `consumeAll` at once; returns its decisions, latencies (loop stalls taken off) and when RedisStore settled. */
async function duringPause(master: ClusterNode, store: WitnessedStore, consumeAll: () => Promise<Decision>[]) {
  const pausedBy = performance.now();
  await suite.cluster.command(master, 'CLIENT', 'PAUSE', PAUSE_MS, 'ALL');
  const stalls = recordStalls();
  const started = performance.now();
  const timed = consumeAll().map(async (pending) => {
    const decision = await pending;
    // What the limiter's deadline controls: the time this process' event loop was held up (a busy
    // host, GC) is taken off.
    const ended = performance.now();
    return { decision, latency: ended - started - stalledDuring(started, ended) };
  });
  const results = await Promise.all(timed);
  stalls.stop();
  await store.settled();
  // The pause was set after pausedBy, so it lasts at least until pausedBy + PAUSE_MS.
  const settledAt = performance.now() - pausedBy;
  return {
    decisions: results.map((result) => result.decision),
    maxLatency: Math.max(...results.map((result) => result.latency)),
    settledAt,
  };
}

describe('layers on different masters when one freezes mid-request (C33)', () => {
  it('degrades within the deadline, refunds the ip charge, charges the frozen user layer once, leaves TTLs', async () => {
    const prefix = freshPrefix('partial');
    const { userMaster, ipMaster } = pickMasters();
    const [ip = ''] = await identitiesOn(prefix, 'ip', ipMaster, 1);
    const [user = ''] = await identitiesOn(prefix, 'user', userMaster, 1);
    const [ipKey, userKey] = [keyOf(prefix, 'ip', ip), keyOf(prefix, 'user', user)];
    const { limiter, store, storeErrors } = partitionedLimiter(prefix);
    // Loads the script on both masters (a NOSCRIPT retry would not run until the pause ends), without
    // the deadlines under test: on a busy machine EVALSHA, NOSCRIPT and EVAL can outlast 100 ms.
    await warmScript(prefix, ip, user);
    expect(await limiter.consume(request(ip, user))).toMatchObject({ allowed: true, degraded: false });
    const before = { ip: await countOf(ipKey), user: await countOf(userKey) };
    const runsBefore = {
      ip: await scriptRuns(suite.cluster, ipMaster),
      user: await scriptRuns(suite.cluster, userMaster),
    };

    const run = await duringPause(userMaster, store, () => [limiter.consume(request(ip, user))]);
    const ipAfterRefund = await countOf(ipKey);
    const ipRuns = (await scriptRuns(suite.cluster, ipMaster)) - runsBefore.ip;
    await drained(userMaster);
    const userAfter = await countOf(userKey);
    const userRuns = (await scriptRuns(suite.cluster, userMaster)) - runsBefore.user;
    const ttls = await ttlsUnder(prefix);
    console.log(
      `summary single: allowed ${run.decisions[0]?.allowed}, degraded ${run.decisions[0]?.degraded} in ` +
        `${run.maxLatency.toFixed(0)} ms; RedisStore: ` +
        `${JSON.stringify(messages(store.failures))}, settled ${run.settledAt.toFixed(0)} ms into the ${PAUSE_MS} ms ` +
        `pause; ip count ${before.ip} -> ${ipAfterRefund} (${ipRuns} script runs); user count ${before.user} -> ` +
        `${userAfter} (${userRuns} late runs); PTTLs ${JSON.stringify([...ttls.values()])}`,
    );

    // Decided by the local fallback within the limiter's deadline; no error reached the caller.
    expect(run.decisions[0]).toMatchObject({ allowed: true, degraded: true });
    expect(run.maxLatency).toBeLessThanOrEqual(LIMITER_TIMEOUT + 50);
    expect(codes(storeErrors)).toEqual(['ERR_FLOODGATE_STORE_TIMEOUT']);
    // RedisStore gave up on the frozen user group at its own timeout, and refunded the ip group
    // while the user shard was still frozen: the ip master ran the charge and its refund.
    expect(codes(store.failures)).toEqual(['ERR_FLOODGATE_STORE_TIMEOUT']);
    expect(messages(store.failures)).toEqual([`store call did not settle within ${STORE_TIMEOUT} ms`]);
    expect(run.settledAt).toBeLessThan(PAUSE_MS);
    expect(ipRuns).toBe(2);
    expect(ipAfterRefund).toBe(before.ip);
    // C33 allows at most one charge per request on the frozen layer. What happens is exactly one:
    // the script call was already in the shard's socket, so it runs when the pause ends and charges
    // a request that was decided locally. RedisStore had stopped waiting for it, so nothing refunds
    // it: the user layer counts that request once, as if it had been admitted by Redis.
    expect(userRuns).toBe(1);
    expect(userAfter).toBe(before.user + 1);
    expect([...ttls.keys()].sort()).toEqual([ipKey, userKey].sort());
    for (const [key, ttl] of ttls) expect(ttl, key).toBeGreaterThan(0);
  });

  it(`with ${CONCURRENT} requests in flight: ip charges equal Redis-backed admissions, users charged at most once`, async () => {
    const prefix = freshPrefix('partial-many');
    const { userMaster, ipMaster } = pickMasters();
    // Each request its own ip and user; the last pair is the warm-up's.
    const ips = await identitiesOn(prefix, 'ip', ipMaster, CONCURRENT + 1);
    const users = await identitiesOn(prefix, 'user', userMaster, CONCURRENT + 1);
    const requests = ips.slice(0, CONCURRENT).map((ip, i) => ({ ip, user: users[i] as string }));
    const { limiter, store, storeErrors } = partitionedLimiter(prefix);
    expect(await limiter.consume(request(ips[CONCURRENT] as string, users[CONCURRENT] as string))).toMatchObject({
      allowed: true,
      degraded: false,
    });
    const runsBefore = {
      ip: await scriptRuns(suite.cluster, ipMaster),
      user: await scriptRuns(suite.cluster, userMaster),
    };

    const run = await duringPause(userMaster, store, () =>
      requests.map(({ ip, user }) => limiter.consume(request(ip, user))),
    );
    const ipCounts = await Promise.all(requests.map(({ ip }) => countOf(keyOf(prefix, 'ip', ip))));
    const ipRuns = (await scriptRuns(suite.cluster, ipMaster)) - runsBefore.ip;
    await drained(userMaster);
    const userCounts = await Promise.all(requests.map(({ user }) => countOf(keyOf(prefix, 'user', user))));
    const userRuns = (await scriptRuns(suite.cluster, userMaster)) - runsBefore.user;
    const ttls = await ttlsUnder(prefix);
    const redisAllowed = run.decisions.filter((d) => d.allowed && !d.degraded).length;
    console.log(
      `summary concurrent: ${run.decisions.filter((d) => d.degraded).length}/${CONCURRENT} degraded, ` +
        `${redisAllowed} Redis-backed admissions, max latency ${run.maxLatency.toFixed(0)} ms; RedisStore: ` +
        `${store.calls} calls, ${JSON.stringify(messages(store.failures))} x${store.failures.length}, settled ` +
        `${run.settledAt.toFixed(0)} ms into the ${PAUSE_MS} ms pause; ip charges left ${sum(ipCounts)} ` +
        `(${ipRuns} script runs); user charges ${sum(userCounts)}, max ${Math.max(...userCounts)} per request ` +
        `(${userRuns} late runs); ${ttls.size} keys, min PTTL ${Math.min(...ttls.values())}`,
    );

    expect(run.decisions.every((d) => d.allowed && d.degraded)).toBe(true);
    expect(run.maxLatency).toBeLessThanOrEqual(LIMITER_TIMEOUT + 50);
    expect(codes(storeErrors)).toEqual(Array(CONCURRENT).fill('ERR_FLOODGATE_STORE_TIMEOUT'));
    // Every request reached RedisStore, which gave up on each frozen user group at its own timeout
    // and refunded each ip group (a charge and a refund per request) before the pause ended.
    expect(store.calls).toBe(CONCURRENT + 1);
    expect(messages(store.failures)).toEqual([`store call did not settle within ${STORE_TIMEOUT} ms`]);
    expect(store.failures).toHaveLength(CONCURRENT);
    expect(run.settledAt).toBeLessThan(PAUSE_MS);
    expect(ipRuns).toBe(2 * CONCURRENT);
    expect(sum(ipCounts)).toBe(redisAllowed);
    // At most one charge per request on the frozen layer (see the first test: the frozen call runs late).
    expect(userRuns).toBe(CONCURRENT);
    for (const count of userCounts) expect(count).toBeLessThanOrEqual(1);
    // Every ip key exists (a refund alone never creates one: each was charged, then refunded) and
    // no key under the prefix is left without a TTL.
    for (const { ip } of requests) expect(ttls.has(keyOf(prefix, 'ip', ip)), ip).toBe(true);
    const known = new Set([...ips.map((ip) => keyOf(prefix, 'ip', ip)), ...users.map((u) => keyOf(prefix, 'user', u))]);
    for (const key of ttls.keys()) expect(known.has(key), key).toBe(true);
    for (const [key, ttl] of ttls) expect(ttl, key).toBeGreaterThan(0);
  });
});
