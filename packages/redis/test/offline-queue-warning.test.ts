import { afterAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { RedisStore } from '@floodgate/redis';
import type { FloodgateWarning } from '@floodgate/core';
import { useRedis } from '../../../test/redis/fixtures/suite.ts';

const suite = useRedis();
const clients: Redis[] = [];

afterAll(() => {
  for (const client of clients) client.disconnect();
});

describe('offline queue warning', () => {
  it('stays silent for a client without an offline queue, and warns for a store whose client has one', () => {
    const warnings: FloodgateWarning[] = [];
    const onWarning = (warning: FloodgateWarning) => warnings.push(warning);
    new RedisStore({ client: suite.client, onWarning });
    expect(warnings).toEqual([]);
    const queued = new Redis(suite.url, { lazyConnect: true });
    clients.push(queued);
    new RedisStore({ client: queued, onWarning });
    expect(warnings.map((w) => w.code)).toEqual(['WARN_FLOODGATE_OFFLINE_QUEUE']);
    expect(warnings[0]?.message).toContain('enableOfflineQueue: false');
  });

  it('goes to console.warn when no onWarning is given', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const queued = new Redis(suite.url, { lazyConnect: true });
      clients.push(queued);
      new RedisStore({ client: queued });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/^\[floodgate\] WARN_FLOODGATE_OFFLINE_QUEUE: /);
    } finally {
      warn.mockRestore();
    }
  });
});
