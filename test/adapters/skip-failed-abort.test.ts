import { describe, expect, it } from 'vitest';
import { byIp, fixedWindow } from '@floodgate/core';
import { drivers, get } from './drivers.ts';
import { fixture, storeNames, until, useRedis, withApp } from './suite.ts';

/**
 * Catalogue C35: with skipFailedRequests, a client that leaves before its response ends got no
 * answer, so its unit is given back, exactly once, whatever the handler does afterwards.
 */

useRedis();

/** A handler that waits until the test lets it answer; `entered` says a request is waiting. */
function holdable() {
  let release: (() => void) | undefined;
  return {
    hold: () => new Promise<void>((resolve) => (release = resolve)),
    entered: () => release !== undefined,
    release: () => {
      release?.();
      release = undefined;
    },
  };
}

const remainingOf = async (url: string) => JSON.parse((await get(url)).body).remaining as number;

describe.each(storeNames)('%s store', (storeName) => {
  describe.each(drivers)('$name', (driver) => {
    it.each(['/hold', '/status/500/hold'])(
      'skipFailedRequests: a client that aborts before the response of %s ends gets its unit back, once',
      async (path) => {
        const f = fixture(storeName);
        const held = holdable();
        const limits = [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 4, window: '1m' }) }];
        const options = { limits, skipFailedRequests: true, clock: f.clock, store: f.store, prefix: f.prefix };
        await withApp(driver, { options, hold: held.hold }, async (app) => {
          // One successful request stays charged, so that a second refund would show in the count.
          expect(await remainingOf(app.url)).toBe(3);
          const abort = new AbortController();
          const leaving = fetch(app.url + path, { signal: abort.signal });
          await until(held.entered);
          abort.abort();
          await expect(leaving).rejects.toThrow();
          await f.store.refunded(1);
          expect(f.store.refunds).toEqual([{ kinds: ['fixedWindow'], cost: 1 }]);
          // The handler goes on and answers a client that is gone: nothing more is given back.
          held.release();
          // A failed response after it is refunded in its turn: the second refund is that one.
          expect((await get(app.url, '/status/503')).status).toBe(503);
          await f.store.refunded(2);
          // Charged: the first request (1) and this one (1); a second refund of the aborted one would show 3 here.
          expect(await remainingOf(app.url)).toBe(2);
          expect(await remainingOf(app.url)).toBe(1);
          expect(f.store.refunds).toHaveLength(2);
        });
        expect(f.store.refunds).toHaveLength(2);
      },
    );
  });
});
