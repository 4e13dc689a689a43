import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedWindow, StoreTimeoutError } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { startRedis } from '../../../test/helpers/redis-server.ts';
import { connectClient, freshPrefix, layerKey } from '../../../test/redis/fixtures/client.ts';
import type { Redis } from 'ioredis';
import type { RedisServer } from '../../../test/helpers/redis-server.ts';

// A private server: the test pauses every client of it.
let server: RedisServer;
let client: Redis;
let admin: Redis;

beforeAll(async () => {
  server = await startRedis();
  [client, admin] = await Promise.all([connectClient(server.url), connectClient(server.url)]);
});
afterAll(async () => {
  client?.disconnect();
  admin?.disconnect();
  await server?.stop();
});

describe('RedisStore timeout', () => {
  it('rejects with StoreTimeoutError when Redis does not answer in time', async () => {
    const store = new RedisStore({ client, prefix: freshPrefix('timeout'), timeout: 50 });
    const call = { key: layerKey('ip', 't'), algorithm: fixedWindow({ limit: 5, window: '1m' }), cost: 1 };
    await store.consume([call], 'warm');
    await admin.call('CLIENT', 'PAUSE', '500', 'ALL');
    const started = performance.now();
    await expect(store.consume([call], 'paused')).rejects.toBeInstanceOf(StoreTimeoutError);
    expect(performance.now() - started).toBeLessThan(400);
  });
});
