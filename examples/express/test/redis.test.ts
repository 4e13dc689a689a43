import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../../test/helpers/redis-server.ts';
import { createApp } from '../src/app.js';
import { createStore } from '../src/store.js';

// A private redis-server per run, so the example's fixed prefixes start from nothing.
let redis: RedisServer;
let closeStore: () => Promise<void>;
let server: Server;
let base: string;

beforeAll(async () => {
  redis = await startRedis();
  const { store, close } = await createStore(redis.url);
  closeStore = close;
  const app = createApp({ store });
  await new Promise<void>((resolve) => {
    server = app.listen(0, '127.0.0.1', () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 20_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await closeStore?.();
  await redis?.stop();
});

it('counts in Redis when given a REDIS_URL: 5 logins, then 429', async () => {
  const statuses = [];
  for (let i = 0; i < 6; i++) statuses.push((await fetch(`${base}/login`, { method: 'POST' })).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  const client = new (await import('ioredis')).Redis(redis.url);
  const keys = await client.keys('login:ip:*');
  await client.quit();
  expect(keys).toHaveLength(1);
});
