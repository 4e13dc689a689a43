import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { RedisStore } from '@floodgate/redis';
import { redisForSuite } from '../../../test/helpers/redis-server.ts';
import { connectClient } from './connect';

let server: { url: string; stop(): Promise<void> };
const clients: Redis[] = [];

beforeAll(async () => {
  server = await redisForSuite();
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await server?.stop();
});

describe('offline queue warning', () => {
  it('stays silent for a client without an offline queue, and warns once for clients with one', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const tuned = await connectClient(server.url);
      clients.push(tuned);
      new RedisStore({ client: tuned });
      expect(warn).not.toHaveBeenCalled();

      const queued = new Redis(server.url, { lazyConnect: true });
      clients.push(queued);
      new RedisStore({ client: queued });
      new RedisStore({ client: queued });
      new RedisStore({ client: new Redis(server.url, { lazyConnect: true }) });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toContain('FLOODGATE_OFFLINE_QUEUE');
    } finally {
      warn.mockRestore();
    }
  });
});
