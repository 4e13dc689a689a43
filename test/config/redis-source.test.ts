import { limitsFromRedis, publishLimits } from '@floodgate/config';
import { RedisStore } from '@floodgate/redis';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseList } from 'structured-headers';
import { drivers, get } from '../adapters/drivers.ts';
import { startRedis } from '../helpers/redis-server.ts';
import { after, before, policiesOf } from './documents.ts';
import type { RedisLimits } from '@floodgate/config';
import type { FloodgateWarning } from '@floodgate/core';
import type { Reply, Running } from '../adapters/drivers.ts';
import type { RedisServer } from '../helpers/redis-server.ts';

/**
 * Issue 24: one limits document in one Redis key, polled by every instance. Two instances (Express
 * over ioredis, Fastify over node-redis) share the store: both take up a change within the poll
 * interval, keep counting the unchanged rule where it was, and keep their rules (with one warning
 * each) when the key holds a bad document or Redis cannot be read.
 */

const KEY = 'limits:test';
const INTERVAL = 50;
let server: RedisServer;
let admin: Redis;

beforeAll(async () => {
  server = await startRedis();
  admin = new Redis(server.url);
  admin.on('error', () => {});
});
afterAll(async () => {
  admin.disconnect();
  await server.stop();
});

function advertised(reply: Reply): string {
  return parseList(reply.headers['ratelimit-policy'] as string)
    .map(([name, params]) => `${String(name)}=${String(params.get('q'))}`)
    .sort()
    .join(',');
}

function remainingOf(reply: Reply, rule: string): unknown {
  return parseList(reply.headers.ratelimit as string)
    .find(([name]) => name === rule)?.[1]
    .get('r');
}

/** Resolves with the next update the feed hands its limiters (they apply it before this runs). */
function nextUpdate(limits: RedisLimits): Promise<void> {
  return new Promise((resolve) => {
    const stop = limits.subscribe(() => {
      stop();
      resolve();
    });
  });
}

describe('limitsFromRedis on two instances', () => {
  it('converges within the poll interval, keeps the unchanged rule counting, and keeps its rules on bad input', async () => {
    await publishLimits(admin, KEY, before);
    const ioredis = new Redis(server.url, { maxRetriesPerRequest: 0, enableOfflineQueue: false });
    ioredis.on('error', () => {});
    await new Promise((resolve) => ioredis.once('ready', resolve));
    const nodeRedis = createClient({ url: server.url, socket: { reconnectStrategy: false } });
    nodeRedis.on('error', () => {});
    await nodeRedis.connect();
    const warnings: FloodgateWarning[][] = [[], []];
    const feeds = [
      await limitsFromRedis(ioredis, KEY, { interval: INTERVAL }),
      await limitsFromRedis(nodeRedis, KEY, { interval: INTERVAL }),
    ] as const;
    const apps: Running[] = [];
    try {
      for (const [i, driver] of [drivers[0], drivers[2]].entries()) {
        apps.push(
          await (driver as (typeof drivers)[number]).start({
            options: {
              store: new RedisStore({ client: ioredis }),
              prefix: 'converge',
              limits: feeds[i],
              onWarning: (w: FloodgateWarning) => warnings[i]?.push(w),
            },
          }),
        );
      }
      const [a, b] = apps as [Running, Running];
      expect(remainingOf(await get(a.url), 'hour')).toBe(39);
      expect(remainingOf(await get(b.url), 'hour')).toBe(38);

      const applied = Promise.all(feeds.map(nextUpdate));
      const started = performance.now();
      await publishLimits(admin, KEY, after);
      await applied;
      const converged = performance.now() - started;
      // Each instance's own timer picked the change up: no poll() was called.
      expect(converged).toBeLessThan(5_000);
      const [ra, rb] = [await get(a.url), await get(b.url)];
      expect([advertised(ra), advertised(rb)]).toEqual([policiesOf(after), policiesOf(after)]);
      expect([remainingOf(ra, 'hour'), remainingOf(rb, 'hour')]).toEqual([37, 36]);
      // The removed rule's key is left to expire on its own TTL.
      const removed = await admin.keys('converge:extra:*');
      expect(removed).toHaveLength(1);
      expect(await admin.pttl(removed[0] as string)).toBeGreaterThan(0);

      // A bad document written around publishLimits: refused by both, reported once each.
      const refused = Promise.all(feeds.map(nextUpdate));
      await admin.set(
        KEY,
        JSON.stringify({ rules: [{ name: 'hour', key: { source: 'ip' }, algorithm: { type: 'gcra' } }] }),
      );
      await refused;
      await Promise.all(feeds.map((feed) => feed.poll()));
      expect(warnings.map((list) => list.map((w) => w.code))).toEqual([
        ['WARN_FLOODGATE_LIMITS_REJECTED'],
        ['WARN_FLOODGATE_LIMITS_REJECTED'],
      ]);
      expect(warnings[0]?.[0]?.message).toContain(`limits key ${KEY}.rules[0].algorithm: gcra.rate`);
      expect(remainingOf(await get(a.url), 'hour')).toBe(35);

      // publishLimits refuses it before writing anything.
      await expect(publishLimits(admin, KEY, { rules: [] })).rejects.toMatchObject({
        code: 'ERR_FLOODGATE_INVALID_OPTION',
      });

      // Redis gone: each instance reports it once, however many polls fail, and keeps its rules.
      await server.kill();
      for (let i = 0; i < 3; i++) await Promise.all(feeds.map((feed) => feed.poll()));
      expect(warnings.map((list) => list.length)).toEqual([2, 2]);
      expect(warnings[0]?.[1]?.message).toContain(`limits key ${KEY} could not be read`);
      expect(feeds.map((feed) => feed.rules.map((rule) => rule.name).sort())).toEqual([
        ['burst', 'hour', 'other'],
        ['burst', 'hour', 'other'],
      ]);
    } finally {
      for (const feed of feeds) feed.close();
      for (const app of apps) await app.close();
      ioredis.disconnect();
      await nodeRedis.quit().catch(() => {});
      await server.start();
    }
  });
});
