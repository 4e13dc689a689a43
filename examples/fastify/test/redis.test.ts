import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { useExampleServer } from '../../../test/helpers/example-server.ts';
import { startRedis, type RedisServer } from '../../../test/helpers/redis-server.ts';
import { clearOfWindowEdge } from '../../../test/helpers/window-edge.ts';
import { buildApp } from '../src/app.js';
import { createStore } from '../src/store.js';

// A private redis-server per run, so the example's fixed prefixes start from nothing.
let redis: RedisServer;
const suite = useExampleServer(async (defer) => {
  redis = await startRedis();
  defer(() => redis.stop());
  const { store, close } = await createStore(redis.url);
  defer(close);
  const app = await buildApp({ store });
  defer(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}, 20_000);

it('counts in Redis when given a REDIS_URL: 5 logins, then 429', async () => {
  // Redis decides on its own clock: keep the six requests inside one minute of it.
  await clearOfWindowEdge(60_000);
  const statuses = [];
  for (let i = 0; i < 6; i++) statuses.push((await fetch(`${suite.base}/login`, { method: 'POST' })).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  const client = new (await import('ioredis')).Redis(redis.url);
  const keys = await client.keys('api.r*:ip:*');
  await client.quit();
  expect(keys).toHaveLength(1);
});
