import { describe, expect, it } from 'vitest';
import { byIp, concurrency, fixedWindow, leakyBucket, WarningCode } from '@floodgate/core';
import { drivers, get } from './drivers.ts';
import { fixture, storeNames, until, useRedis, withApp } from './suite.ts';
import type { FloodgateWarning, StoreErrorEvent } from '@floodgate/core';

/** Waiting, in-flight slots, client addresses and failures, through every framework and both stores. */

useRedis();

/** Fastify 5 fails closed on hop counts, so every framework trusts the test client's proxy by address. */
const LOOPBACK = ['127.0.0.1'];

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

describe.each(storeNames)('%s store', (storeName) => {
  describe.each(drivers)('$name', (driver) => {
    it('shaping waits `delay` before the handler, and answers 429 beyond maxDelay', async () => {
      const f = fixture(storeName);
      const limits = [
        { name: 'shape', key: byIp(), algorithm: leakyBucket({ capacity: 5, leakRate: 10, mode: 'shaping' }) },
      ];
      const base = { limits, clock: f.clock, store: f.store, legacyHeaders: false };
      await withApp(driver, { options: { ...base, prefix: f.prefix } }, async (app) => {
        const waits = [];
        for (let i = 0; i < 3; i++) {
          const started = performance.now();
          expect((await get(app.url)).status).toBe(200);
          waits.push(performance.now() - started);
        }
        // The clock is frozen, so the third request queues behind two: 200 ms at 10 per second.
        expect(waits[2]).toBeGreaterThanOrEqual(195);
        expect(waits[2]).toBeLessThan(195 + 400);
        expect(waits[1]).toBeGreaterThanOrEqual(95);
      });
      await withApp(driver, { options: { ...base, prefix: `${f.prefix}m`, maxDelay: 150 } }, async (app) => {
        expect((await get(app.url)).status).toBe(200);
        expect((await get(app.url)).status).toBe(200);
        const started = performance.now();
        const capped = await get(app.url);
        expect(performance.now() - started).toBeLessThan(150);
        expect(capped.status).toBe(429);
        expect(capped.headers['retry-after']).toBe('1');
        await f.store.refunded(1);
        expect(f.store.refunds[0]).toEqual({ kinds: ['leakyBucket'], cost: 1 });
      });
    });

    it('a client that leaves during the shaping wait gets its unit back, once', async () => {
      const f = fixture(storeName);
      const limits = [
        { name: 'shape', key: byIp(), algorithm: leakyBucket({ capacity: 3, leakRate: 0.5, mode: 'shaping' }) },
      ];
      await withApp(driver, { options: { limits, clock: f.clock, store: f.store, prefix: f.prefix } }, async (app) => {
        expect((await get(app.url)).status).toBe(200);
        const abort = new AbortController();
        const waiting = fetch(app.url, { signal: abort.signal });
        await until(() => f.store.consumed === 2);
        abort.abort();
        await expect(waiting).rejects.toThrow();
        await f.store.refunded(1);
        expect(f.store.refunds).toEqual([{ kinds: ['leakyBucket'], cost: 1 }]);
        f.now += 2000;
        expect((await get(app.url)).status).toBe(200);
        expect(f.store.refunds).toHaveLength(1);
      });
    });

    it('a concurrency slot is released once when the response finishes, and once when the client leaves', async () => {
      const f = fixture(storeName);
      const held = holdable();
      const limits = [{ name: 'inflight', key: byIp(), algorithm: concurrency({ max: 1 }) }];
      await withApp(
        driver,
        { options: { limits, clock: f.clock, store: f.store, prefix: f.prefix }, hold: held.hold },
        async (app) => {
          const first = fetch(`${app.url}/hold`);
          await until(held.entered);
          expect((await get(app.url)).status).toBe(429);
          held.release();
          expect((await first).status).toBe(200);
          await f.store.refunded(1);
          expect((await get(app.url)).status).toBe(200);
          await f.store.refunded(2);

          const abort = new AbortController();
          const leaving = fetch(`${app.url}/hold`, { signal: abort.signal });
          await until(held.entered);
          abort.abort();
          await expect(leaving).rejects.toThrow();
          await f.store.refunded(3);
          held.release();
          expect((await get(app.url)).status).toBe(200);
          await f.store.refunded(4);
          expect((await get(app.url)).status).toBe(200);
          await f.store.refunded(5);
          expect(f.store.refunds).toHaveLength(5);
          expect(f.store.refunds.every((refund) => refund.kinds.join() === 'concurrency')).toBe(true);
        },
      );
    });

    it('X-Forwarded-For is ignored unless a proxy is trusted', async () => {
      const f = fixture(storeName);
      const options = { limit: 1, window: '1m', clock: f.clock, store: f.store, prefix: f.prefix, onWarning: () => {} };
      await withApp(driver, { options }, async (app) => {
        expect((await get(app.url, '/', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(200);
        expect((await get(app.url, '/', { 'x-forwarded-for': '198.51.100.2' })).status).toBe(429);
      });
      await withApp(driver, { options: { ...options, prefix: `${f.prefix}t` }, trustProxy: LOOPBACK }, async (app) => {
        expect((await get(app.url, '/', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(200);
        expect((await get(app.url, '/', { 'x-forwarded-for': '198.51.100.2' })).status).toBe(200);
        expect((await get(app.url, '/', { 'x-forwarded-for': '203.0.113.9, 198.51.100.2' })).status).toBe(429);
      });
    });

    it('a hop count of 1 is honoured, except by Fastify 5, which ignores it: then the adapter warns', async () => {
      const f = fixture(storeName);
      const warnings: FloodgateWarning[] = [];
      const onWarning = (warning: FloodgateWarning) => warnings.push(warning);
      const options = { limit: 1, window: '1m', clock: f.clock, store: f.store, prefix: f.prefix, onWarning };
      const ignoresHopCount = driver.name === 'fastify 5';
      await withApp(driver, { options, trustProxy: 1 }, async (app) => {
        expect((await get(app.url, '/', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(200);
        expect((await get(app.url, '/', { 'x-forwarded-for': '198.51.100.2' })).status).toBe(
          ignoresHopCount ? 429 : 200,
        );
        expect((await get(app.url)).status).toBe(ignoresHopCount ? 429 : 200);
      });
      if (ignoresHopCount) {
        expect(warnings).toEqual([
          { code: WarningCode.untrustedForwardedFor, message: expect.stringMatching(/Fastify 5 ignores a hop count/) },
        ]);
      } else {
        expect(warnings).toEqual([]);
      }
    });

    it('IPv6 addresses in one /56 share a bucket', async () => {
      const f = fixture(storeName);
      const options = { limit: 1, window: '1m', clock: f.clock, store: f.store, prefix: f.prefix };
      await withApp(driver, { options, trustProxy: LOOPBACK }, async (app) => {
        expect((await get(app.url, '/', { 'x-forwarded-for': '2001:db8:abcd:1201::1' })).status).toBe(200);
        expect((await get(app.url, '/', { 'x-forwarded-for': '2001:db8:abcd:12ff:ffff::2' })).status).toBe(429);
        expect((await get(app.url, '/', { 'x-forwarded-for': '2001:db8:abcd:1300::1' })).status).toBe(200);
      });
    });

    it('a key function that throws is the request’s doing: its layer counts by client address, every layer still limits, whatever failMode', async () => {
      const f = fixture(storeName);
      for (const failMode of ['local', 'open', 'closed'] as const) {
        const events: StoreErrorEvent[] = [];
        const warnings: FloodgateWarning[] = [];
        // A user id read from a token the client made up: decoding it throws.
        const key = () => {
          throw new Error('malformed token');
        };
        const limits = [
          { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 3, window: '1m' }) },
          { name: 'user', key, algorithm: fixedWindow({ limit: 1, window: '1m' }) },
        ];
        const options = {
          limits,
          clock: f.clock,
          store: f.store,
          prefix: `${f.prefix}${failMode}`,
          failMode,
          onStoreError: (event: StoreErrorEvent) => events.push(event),
          onWarning: (warning: FloodgateWarning) => warnings.push(warning),
        };
        await withApp(driver, { options }, async (app) => {
          const first = await get(app.url);
          expect(first.status).toBe(200);
          expect(first.headers.ratelimit).toBe('"user";r=0;t=60, "ip";r=2;t=60');
          const second = await get(app.url);
          expect(second.status).toBe(429);
          expect(JSON.parse(second.body)['violated-policies']).toEqual(['user']);
        });
        expect(events).toEqual([]);
        expect(warnings.map((w) => w.code)).toEqual([WarningCode.keyFunctionFailed]);
        expect(warnings[0]?.message).toMatch(/rule "user" threw malformed token/);
      }
    });

    it('a cost the request cannot pay is refused, never waved through by failMode (issue 9, item 1)', async () => {
      const f = fixture(storeName);
      for (const failMode of ['local', 'open'] as const) {
        const warnings: FloodgateWarning[] = [];
        // The cost comes from the request, as a GraphQL complexity or a batch size would.
        const cost = (req: unknown) => Number(driver.headerOf(req, 'x-cost'));
        const options = {
          limits: [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 3, window: '1m' }) }],
          cost,
          clock: f.clock,
          store: f.store,
          prefix: `${f.prefix}${failMode}`,
          failMode,
          onWarning: (warning: FloodgateWarning) => warnings.push(warning),
        };
        await withApp(driver, { options }, async (app) => {
          expect((await get(app.url, '/', { 'x-cost': '3' })).status).toBe(200);
          // The client is out of quota: nothing it sends as a cost may get it through. A cost no
          // wait can pay is refused without Retry-After...
          for (const bad of ['NaN', '-1', '1.5', 'Infinity', 'abc', '1e9', '4']) {
            const refused = await get(app.url, '/', { 'x-cost': bad });
            expect(refused.status, `cost ${JSON.stringify(bad)}`).toBe(429);
            expect(refused.headers['retry-after'], `cost ${JSON.stringify(bad)}`).toBeUndefined();
          }
          // ...and '' becomes a cost of 0, which charges nothing but passes only while there is room.
          const free = await get(app.url, '/', { 'x-cost': '' });
          expect([free.status, free.headers['retry-after']]).toEqual([429, '60']);
          expect((await get(app.url, '/', { 'x-cost': '1' })).status).toBe(429);
        });
        expect(warnings.map((w) => w.code)).toEqual([WarningCode.invalidCost]);
      }
    });

    it('warns once per instance, with stable codes, about proxy trust mistakes and shared counters', async () => {
      const f = fixture(storeName);
      const warnings: FloodgateWarning[] = [];
      const onWarning = (warning: FloodgateWarning) => warnings.push(warning);
      const options = { limit: 5, window: '1m', clock: f.clock, store: f.store, prefix: f.prefix, onWarning };
      await withApp(driver, { options }, async (app) => {
        await get(app.url, '/', { 'x-forwarded-for': '198.51.100.1' });
        await get(app.url, '/', { 'x-forwarded-for': '198.51.100.2' });
      });
      expect(warnings.map((w) => w.code)).toEqual([WarningCode.untrustedForwardedFor]);
      warnings.length = 0;
      await withApp(driver, { options: { ...options, prefix: `${f.prefix}a` }, trustProxy: true }, async (app) => {
        await get(app.url);
        await get(app.url);
      });
      expect(warnings.map((w) => w.code)).toEqual([WarningCode.permissiveTrustProxy]);
      warnings.length = 0;
      await withApp(driver, { options: { ...options, prefix: `${f.prefix}a` } }, async () => {});
      expect(warnings.map((w) => w.code)).toEqual([WarningCode.storeReuse]);
      expect(warnings[0]?.message).toContain(`${f.prefix}a`);
    });
  });
});
