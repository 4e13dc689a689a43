import { byIp, fixedWindow } from '@floodgate/core';
import { describe, expect, it } from 'vitest';
import { frameworks, withApps } from './support/controls-apps.ts';
import { backend, storeNames, useRedisBackend } from './support/controls-backend.ts';
import { call } from './support/controls-routes.ts';
import type { StoreErrorEvent } from '@floodgate/core';
import type { Framework } from './support/controls-apps.ts';

/**
 * `refund(n)` on the decision a handler sees, through every adapter, against both stores: it gives
 * back at most what that request was charged (less what it already gave back), only to the layers
 * that charged it, and an amount that is not a whole number >= 0 is the caller's error, not the
 * store's.
 */

useRedisBackend();

const INVALID_COST = 'ERR_FLOODGATE_INVALID_COST';

/** The request's cost: the `x-cost` header, else 1. */
const costOf = (framework: Framework) => (req: unknown) => Number(framework.headerOf(req, 'x-cost') ?? 1);

/** What each layer has left for the calling client, charging nothing. */
async function remaining(url: string): Promise<Record<string, number>> {
  const { results } = (await call(url, '/control/peek?cost=0')).json as {
    results: { rule: string; remaining: number }[];
  };
  return Object.fromEntries(results.map((layer) => [layer.rule, layer.remaining]));
}

describe.each(storeNames)('%s store', (storeName) => {
  describe.each(frameworks)('$name', (framework) => {
    it('issue 19.8: refund(n) gives back at most what the request was charged, less what it gave back already', async () => {
      const b = backend(storeName);
      const limits = [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 1000, window: '1m' }) }];
      await withApps([framework.start(b.options({ limits, cost: costOf(framework) }))], async (app) => {
        expect((await call(app.url, '/', { 'x-cost': '450' })).json.remaining).toBe(550);
        const greedy = await call(app.url, '/?refund=1000', { 'x-cost': '50' });
        expect(greedy.json).toMatchObject({ allowed: true, remaining: 500, refunds: ['ok'] });
        expect(await remaining(app.url)).toEqual({ ip: 550 });
        const piecemeal = await call(app.url, '/?refund=30,30,30', { 'x-cost': '50' });
        expect(piecemeal.json.refunds).toEqual(['ok', 'ok', 'ok']);
        expect(await remaining(app.url)).toEqual({ ip: 550 });
      });
    });

    it('issue 19.8: a negative or fractional refund rejects with ERR_FLOODGATE_INVALID_COST, gives nothing back, and is no store error', async () => {
      const b = backend(storeName);
      const storeErrors: StoreErrorEvent[] = [];
      const limits = [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 100, window: '1m' }) }];
      const options = b.options({
        limits,
        cost: costOf(framework),
        onStoreError: (event: StoreErrorEvent) => storeErrors.push(event),
      });
      await withApps([framework.start(options)], async (app) => {
        const answer = await call(app.url, '/?refund=-5,1.5,NaN,Infinity', { 'x-cost': '5' });
        expect(answer.json.refunds).toEqual([INVALID_COST, INVALID_COST, INVALID_COST, INVALID_COST]);
        expect(await remaining(app.url)).toEqual({ ip: 95 });
        // The request can still give back what it was charged.
        expect((await call(app.url, '/?refund=5', { 'x-cost': '5' })).json.refunds).toEqual(['ok']);
        expect(await remaining(app.url)).toEqual({ ip: 95 });
        expect(storeErrors).toEqual([]);
      });
    });

    it('issue 19.8: a refund reaches only the layers that charged the request, not a shadow layer that denied', async () => {
      const b = backend(storeName);
      const limits = [
        { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 10, window: '1m' }) },
        { name: 'trial', key: byIp(), algorithm: fixedWindow({ limit: 2, window: '1m' }), shadow: true },
      ];
      await withApps([framework.start(b.options({ limits }))], async (app) => {
        for (let i = 0; i < 2; i++) await call(app.url);
        const third = await call(app.url, '/?refund=1');
        expect(third.json).toMatchObject({ allowed: true, shadowDenied: true, refunds: ['ok'] });
        expect(await remaining(app.url)).toEqual({ ip: 8, trial: 0 });
      });
    });
  });
});
