import { createLimiter, fixedWindow, type Decision, type KeyContext } from '@floodgate/core';
import { describe, expect, it } from 'vitest';
import type { ClusterNode } from '../helpers/redis-cluster.ts';
import { useCluster } from '../helpers/cluster-suite.ts';
import { freshPrefix } from '../helpers/redis-cluster-client.ts';
import { NASTY_IDENTITIES } from '../hashtags/identities.ts';
import { limiterKeyOn } from './node-stats.ts';
import { strictClusterOptions } from './limiter.ts';
import { contextOf } from '../helpers/context.ts';
import { CLIENT_FAMILIES } from '../redis/fixtures/families.ts';
import { useFamilyClusterClient } from '../redis/fixtures/family-suite.ts';
import type { RedisStoreOptions } from '@floodgate/redis';

const suite = useCluster();

const request = (ip: string, user: string): KeyContext => contextOf({ ip, headers: { 'x-user': user } });

/** An ip and two users whose keys live on three different masters, as the cluster itself reports. */
async function spreadIdentities(prefix: string) {
  const owner = async (rule: string, id: string) => (await suite.cluster.masterOf(`${prefix}:${rule}:{${id}}`)).port;
  const ip = '198.51.100.7';
  const taken = new Set([await owner('ip', ip)]);
  const users: string[] = [];
  for (let i = 0; users.length < 2 && i < 200; i++) {
    const port = await owner('user', `user-${i}`);
    if (taken.has(port)) continue;
    taken.add(port);
    users.push(`user-${i}`);
  }
  const [userA, userB] = users;
  if (userA === undefined || userB === undefined) throw new Error('no users found on the other two masters');
  return { ip, userA, userB };
}

function layeredLimiter(prefix: string, ipLimit: number, userLimit: number, client: RedisStoreOptions['client']) {
  const { options, storeErrors } = strictClusterOptions(client, prefix);
  const limiter = createLimiter({
    ...options,
    limits: [
      { name: 'ip', key: (ctx) => ctx.ip, algorithm: fixedWindow({ limit: ipLimit, window: '1m' }) },
      { name: 'user', key: (ctx) => ctx.header('x-user'), algorithm: fixedWindow({ limit: userLimit, window: '1m' }) },
    ],
  });
  return { limiter, storeErrors };
}

/** The count a fixedWindow key holds, read from the master that owns it (so the key must live there). */
async function storedCount(master: ClusterNode, key: string): Promise<number> {
  return Number((await suite.cluster.command(master, 'HGET', key, 'count')) ?? 0);
}

async function countOn(prefix: string, rule: string, id: string): Promise<number> {
  const { master, key } = await limiterKeyOn(suite.cluster, prefix, rule, id);
  return key === undefined ? 0 : storedCount(master, key);
}

describe.each(CLIENT_FAMILIES)('layers whose keys live on different masters, over %s', (family) => {
  const store = useFamilyClusterClient(
    family,
    () => suite.cluster.startupNodes,
    () => suite.client,
  );
  it('charges no layer when another denies: the charged layers are refunded', async () => {
    const prefix = freshPrefix('refund');
    const { ip, userA, userB } = await spreadIdentities(prefix);
    const { limiter, storeErrors } = layeredLimiter(prefix, 5, 3, store.client);

    const first: Decision[] = [];
    for (let i = 0; i < 10; i++) first.push(await limiter.consume(request(ip, userA)));
    expect(first.map((d) => d.allowed)).toEqual([true, true, true, false, false, false, false, false, false, false]);
    expect(first.slice(3).every((d) => d.rule === 'user')).toBe(true);
    // Seven denials by the user layer left the ip layer at the three admitted requests.
    expect(await countOn(prefix, 'ip', ip)).toBe(3);
    // ...and each denial reports the ip layer's numbers after its refund, as a single node would.
    const ipRemaining = first.slice(3).map((d) => d.results.find((r) => r.rule === 'ip')?.remaining);
    expect(ipRemaining).toEqual([2, 2, 2, 2, 2, 2, 2]);
    expect(await countOn(prefix, 'user', userA)).toBe(3);

    const second: Decision[] = [];
    for (let i = 0; i < 10; i++) second.push(await limiter.consume(request(ip, userB)));
    expect(second.filter((d) => d.allowed)).toHaveLength(2);
    expect(second.slice(2).every((d) => !d.allowed && d.rule === 'ip')).toBe(true);
    // Eight denials by the ip layer left userB's layer at its two admitted requests.
    expect(await countOn(prefix, 'user', userB)).toBe(2);
    expect(await countOn(prefix, 'ip', ip)).toBe(5);

    expect([...first, ...second].some((d) => d.degraded)).toBe(false);
    expect(storeErrors).toEqual([]);
  });

  it('under concurrency stores exactly what it admitted, within every limit, and ends exact', async () => {
    const prefix = freshPrefix('concurrent');
    const { ip, userA, userB } = await spreadIdentities(prefix);
    // ip 12, each user 8: sometimes the ip layer binds, sometimes a user layer.
    const { limiter, storeErrors } = layeredLimiter(prefix, 12, 8, store.client);
    const users = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? userA : userB));

    const decisions = await Promise.all(users.map((user) => limiter.consume(request(ip, user))));
    const admitted = (user: string) => decisions.filter((d, i) => d.allowed && users[i] === user).length;
    // A refund-based all-or-nothing may deny a request that sees another's charge before its refund
    // (under-admission), but must never admit more than a limit, and stores exactly what it admitted.
    expect(admitted(userA)).toBeLessThanOrEqual(8);
    expect(admitted(userB)).toBeLessThanOrEqual(8);
    expect(admitted(userA) + admitted(userB)).toBeLessThanOrEqual(12);
    expect(await countOn(prefix, 'user', userA)).toBe(admitted(userA));
    expect(await countOn(prefix, 'user', userB)).toBe(admitted(userB));
    expect(await countOn(prefix, 'ip', ip)).toBe(admitted(userA) + admitted(userB));

    // Once the dust settles the ip layer admits exactly up to its limit (8 + 8 > 12).
    let more = 0;
    for (const user of [userA, userB]) while ((await limiter.consume(request(ip, user))).allowed) more += 1;
    expect(admitted(userA) + admitted(userB) + more).toBe(12);
    expect(decisions.some((d) => d.degraded)).toBe(false);
    expect(storeErrors).toEqual([]);
  });

  it('runs layers that share an identity as one call on one slot, whatever the identity', async () => {
    const prefix = freshPrefix('shared');
    const { options, storeErrors } = strictClusterOptions(store.client, prefix);
    let keys: string[] = [];
    const limiter = createLimiter<string>({
      ...options,
      onDecision: (event) => {
        keys = event.keys;
      },
      limits: ['ip', 'user', 'key'].map((name) => ({
        name,
        key: (ctx: KeyContext<string>) => ctx.req,
        algorithm: fixedWindow({ limit: 1, window: '1m' }),
      })),
    });
    for (const identity of NASTY_IDENTITIES) {
      const ctx: KeyContext<string> = contextOf({ req: identity });
      expect(await limiter.consume(ctx), JSON.stringify(identity)).toMatchObject({ allowed: true, degraded: false });
      expect(await limiter.consume(ctx)).toMatchObject({ allowed: false, degraded: false });
      // All three keys sit on the master of the first one, each charged once.
      const master = await suite.cluster.masterOf(keys[0] as string);
      for (const key of keys) expect(await storedCount(master, key)).toBe(1);
    }
    expect(storeErrors).toEqual([]);
  });
});
