import { describe, expect, it } from 'vitest';
import { fixedWindow } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { drivers, get } from './drivers.ts';
import { withApp } from './suite.ts';
import { keysUnder } from '../redis/fixtures/client.ts';
import { useRedis } from '../redis/fixtures/suite.ts';

/**
 * Issue 19, item 10: two services on one Redis, A with store prefix `<p>` and limiter prefix `fg`,
 * B with no store prefix and limiter prefix `<p>fg`. Joined without a separator their keys were
 * the same, and B's requests used up A's clients' limit. Through every framework.
 */

const suite = useRedis();
let sequence = 0;

describe.each(drivers)('$name: two services on one Redis', (driver) => {
  it('never share a counter, whatever their store and limiter prefixes (issue 19, item 10)', async () => {
    const shop = `shop${process.pid}x${++sequence}`;
    const options = (storePrefix: string, prefix: string) => ({
      store: new RedisStore({ client: suite.client, prefix: storePrefix }),
      prefix,
      limits: [{ name: 'client', key: () => 'alice', algorithm: fixedWindow({ limit: 3, window: '1h' }) }],
    });
    await withApp(driver, { options: options(shop, 'fg') }, async (serviceA) => {
      await withApp(driver, { options: options('', `${shop}fg`) }, async (serviceB) => {
        for (let i = 0; i < 3; i++) expect((await get(serviceB.url)).status).toBe(200);
        expect((await get(serviceB.url)).status).toBe(429);
        // Service A's client has made no request yet: its limit is whole.
        expect((await get(serviceA.url)).headers['x-ratelimit-remaining']).toBe('2');
      });
    });
    await suite.client.del(...(await keysUnder(suite.client, shop)));
  });
});
