import { afterAll, describe, expect, it } from 'vitest';
import { fixedWindow } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { startRedis, type RedisServer } from '../../../test/helpers/redis-server.ts';
import { connectClient } from '../../../test/redis/fixtures/client.ts';
import type { FloodgateWarning } from '@floodgate/core';
import type { Redis } from 'ioredis';

const servers: RedisServer[] = [];
const clients: Redis[] = [];
afterAll(async () => {
  for (const client of clients) client.disconnect();
  for (const server of servers) await server.stop();
});

async function storeOn(policy: string, onWarning: (warning: FloodgateWarning) => void) {
  const server = await startRedis({ args: ['--maxmemory-policy', policy] });
  servers.push(server);
  const client = await connectClient(server.url);
  clients.push(client);
  return new RedisStore({ client, onWarning });
}

const call = { key: 'fg:ip:{a}', algorithm: fixedWindow({ limit: 5, window: '1m' }), cost: 1 };

describe('eviction policy warning', () => {
  it('warns once when Redis may evict limiter keys, after the first consume and off its path', async () => {
    const warnings: FloodgateWarning[] = [];
    {
      const store = await storeOn('allkeys-lru', (warning) => warnings.push(warning));
      const [outcome] = await store.consume([call], 'r1');
      expect(outcome?.allowed).toBe(true);
      expect(await store.checkEvictionPolicy()).toBe('allkeys-lru');
      await store.consume([call], 'r2');
      expect(await store.checkEvictionPolicy()).toBe('allkeys-lru');
      expect(warnings.map((w) => w.code)).toEqual(['WARN_FLOODGATE_EVICTION_POLICY']);
      expect(warnings[0]?.message).toContain('allkeys-lru');
    }
  });

  it('stays silent on noeviction', async () => {
    const warnings: FloodgateWarning[] = [];
    const store = await storeOn('noeviction', (warning) => warnings.push(warning));
    await store.consume([call], 'r1');
    expect(await store.checkEvictionPolicy()).toBe('noeviction');
    expect(warnings).toEqual([]);
  });
});
