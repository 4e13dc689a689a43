import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../../test/helpers/redis-server.ts';
import { createPlayground } from '../src/app.js';
import { storeFromEnv } from '../src/store.js';
import { serve } from './serve.ts';

let redis: RedisServer;
let closeStore: () => Promise<void>;
let site: Awaited<ReturnType<typeof serve>>;

beforeAll(async () => {
  redis = await startRedis();
  const { store, storeName, close } = await storeFromEnv({ REDIS_URL: redis.url });
  closeStore = close;
  site = await serve(createPlayground({ store, storeName }));
}, 20_000);

afterAll(async () => {
  await site?.close();
  await closeStore?.();
  await redis?.stop();
});

it('keeps every limiter in Redis when REDIS_URL is set', async () => {
  const config = (await (await fetch(`${site.url}/api/config`)).json()) as { store: string };
  expect(config.store).toBe('redis');
  const client = randomUUID();
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await fetch(`${site.url}/api/gcra?client=${client}`)).status);
  expect(statuses).toEqual([200, 200, 200, 429]);
  const inspect = new Redis(redis.url);
  const keys = await inspect.keys(`playground.gcra:gcra:*:{${client}}*`);
  await inspect.quit();
  expect(keys).toHaveLength(1);
});
