import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../../test/helpers/redis-server.ts';
import { buildApp } from '../src/app.js';
import { createStore } from '../src/store.js';

// A private redis-server per run, so the example's fixed prefixes start from nothing.
let redis: RedisServer;
let closeStore: () => Promise<void>;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  redis = await startRedis();
  const { store, close } = await createStore(redis.url);
  closeStore = close;
  app = await buildApp({ store });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}, 20_000);

afterAll(async () => {
  await app?.close();
  await closeStore?.();
  await redis?.stop();
});

it('counts in Redis when given a REDIS_URL: 5 logins, then 429', async () => {
  const statuses = [];
  for (let i = 0; i < 6; i++) statuses.push((await fetch(`${base}/login`, { method: 'POST' })).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  const client = new (await import('ioredis')).Redis(redis.url);
  const keys = await client.keys('api.r*:ip:*');
  await client.quit();
  expect(keys).toHaveLength(1);
});
