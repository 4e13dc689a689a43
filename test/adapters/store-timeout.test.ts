import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '@floodgate/redis';
import { Redis } from 'ioredis';
import { recordStalls, stalledDuring } from '../helpers/loop-stalls.ts';
import { startRedis, type RedisServer } from '../helpers/redis-server.ts';
import { drivers, get } from './drivers.ts';
import { withApp } from './suite.ts';
import { createLimiter, fixedWindow, type StoreErrorEvent } from '@floodgate/core';
import { contextOf } from '../helpers/context.ts';

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
    // The script is loaded first by a limiter with a generous deadline: on a busy machine EVALSHA,
    // NOSCRIPT and EVAL can outlast 50 ms, and the request the test starts from would be refused.
    const warm = await createLimiter({
      store: new RedisStore({ client }),
      limits: [{ name: 'ip', key: (ctx) => ctx.ip, algorithm: fixedWindow({ limit: 5, window: '1m' }) }],
      prefix: `${prefix}w`,
      timeout: 5000,
    }).consume(contextOf({ ip: '192.0.2.1' }));
    expect(warm.degraded).toBe(false);
    await withApp(driver, { options: { ...base, prefix, failMode: 'closed' } }, async (closedApp) => {
      await withApp(driver, { options: { ...base, prefix: `${prefix}l`, failMode: 'local' } }, async (localApp) => {
        expect((await get(closedApp.url)).status).toBe(200);
        server.signal('SIGSTOP');
        // What the deadline controls: the wall time less what this process' event loop was held up
        // by the host (the client and the app share it); a loaded machine stalled it 300 ms once.
        const stalls = recordStalls();
        const unstalled = (started: number) => {
          const ended = performance.now();
          return ended - started - stalledDuring(started, ended);
        };
        try {
          let started = performance.now();
          const refused = await get(closedApp.url);
          expect(unstalled(started)).toBeLessThan(500);
          expect(refused.status).toBe(503);
          expect(refused.headers['retry-after']).toMatch(/^\d+$/);
          expect(JSON.parse(refused.body)).toMatchObject({ status: 503 });
          started = performance.now();
          const local = await get(localApp.url);
          expect(unstalled(started)).toBeLessThan(500);
          expect(local.status).toBe(200);
          expect(local.headers['ratelimit-policy']).toBe('"ip";q=5;w=60');
        } finally {
          stalls.stop();
          server.signal('SIGCONT');
        }
        expect(errors.length).toBeGreaterThanOrEqual(2);
      });
    });
  });
});
