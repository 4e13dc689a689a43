import { afterAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { RedisStore } from '@floodgate/redis';
import { useRedis } from '../../../test/redis/fixtures/suite.ts';

const suite = useRedis();
const clients: Redis[] = [];

afterAll(() => {
  for (const client of clients) client.disconnect();
});

describe('offline queue warning', () => {
  it('stays silent for a client without an offline queue, and warns once for clients with one', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      new RedisStore({ client: suite.client });
      expect(warn).not.toHaveBeenCalled();

      const queued = new Redis(suite.url, { lazyConnect: true });
      clients.push(queued);
      new RedisStore({ client: queued });
      new RedisStore({ client: queued });
      new RedisStore({ client: new Redis(suite.url, { lazyConnect: true }) });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toContain('FLOODGATE_OFFLINE_QUEUE');
    } finally {
      warn.mockRestore();
    }
  });
});
