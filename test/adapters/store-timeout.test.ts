import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '@floodgate/redis';
import { Redis } from 'ioredis';
import { startRedis, type RedisServer } from '../helpers/redis-server.ts';
import { drivers, get } from './drivers.ts';
import { withApp } from './suite.ts';
import type { StoreErrorEvent } from '@floodgate/core';

/** A Redis that stops answering (SIGSTOP): the limiter's `timeout` bounds the wait, then failMode decides. */

let server: RedisServer;
let client: Redis;
let sequence = 0;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  await new Promise((resolve) => client.once('ready', resolve));
});
afterAll(async () => {
  server.signal('SIGCONT');
  client.disconnect();
  await server.stop();
});

describe.each(drivers)('$name', (driver) => {
  it('answers within the timeout: 503 when closed, unlimited-but-degraded when local', async () => {
    // RedisStore's own bound is 1 s: only the limiter's 50 ms deadline answers within the 500 ms checked below.
    const store = new RedisStore({ client });
    const errors: StoreErrorEvent[] = [];
    const base = { limit: 5, window: '1m', store, timeout: 50, onStoreError: (e: StoreErrorEvent) => errors.push(e) };
    const prefix = `stall${process.pid}x${++sequence}`;
    await withApp(driver, { options: { ...base, prefix, failMode: 'closed' } }, async (closedApp) => {
      await withApp(driver, { options: { ...base, prefix: `${prefix}l`, failMode: 'local' } }, async (localApp) => {
        expect((await get(closedApp.url)).status).toBe(200);
        server.signal('SIGSTOP');
        try {
          let started = performance.now();
          const refused = await get(closedApp.url);
          expect(performance.now() - started).toBeLessThan(500);
          expect(refused.status).toBe(503);
          expect(refused.headers['retry-after']).toMatch(/^\d+$/);
          expect(JSON.parse(refused.body)).toMatchObject({ status: 503 });
          started = performance.now();
          const local = await get(localApp.url);
          expect(performance.now() - started).toBeLessThan(500);
          expect(local.status).toBe(200);
          expect(local.headers['ratelimit-policy']).toBe('"ip";q=5;w=60');
        } finally {
          server.signal('SIGCONT');
        }
        expect(errors.length).toBeGreaterThanOrEqual(2);
      });
    });
  });
});
