import { describe, expect, it } from 'vitest';
import { byIp, fixedWindow } from '@floodgate/core';
import { drivers, get } from './drivers.ts';
import { fixture, storeNames, T0, T0s, until, useRedis, withApp } from './suite.ts';

/** One behavioural table, driven through every framework and major version, against both stores. */

const legacy = (remaining: number, resetS: number) => ({
  'x-ratelimit-limit': '2',
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(T0s + resetS),
});

/** limit 2 per minute (sliding window) at T0; at T0+30s a third waits 60 s, until the old window weighs 1. */
const HEADER_MODES = [
  {
    mode: 'draft-8',
    first: { ratelimit: '"ip";r=1;t=120', 'ratelimit-policy': '"ip";q=2;w=60' },
    denied: { ratelimit: '"ip";r=0;t=60', 'ratelimit-policy': '"ip";q=2;w=60' },
  },
  {
    mode: 'draft-7',
    first: { ratelimit: 'limit=2, remaining=1, reset=120', 'ratelimit-policy': '2;w=60' },
    denied: { ratelimit: 'limit=2, remaining=0, reset=60', 'ratelimit-policy': '2;w=60' },
  },
  {
    mode: 'draft-6',
    first: {
      'ratelimit-limit': '2',
      'ratelimit-policy': '2;w=60',
      'ratelimit-remaining': '1',
      'ratelimit-reset': '120',
    },
    denied: {
      'ratelimit-limit': '2',
      'ratelimit-policy': '2;w=60',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '60',
    },
  },
  { mode: false, first: {}, denied: {} },
] as const;

useRedis();

describe.each(storeNames)('%s store', (storeName) => {
  describe.each(drivers)('$name', (driver) => {
    it.each(HEADER_MODES)('short form: limit, then 429 with exact headers ($mode)', async ({ mode, first, denied }) => {
      const f = fixture(storeName);
      const options = {
        limit: 2,
        window: '1m',
        clock: f.clock,
        store: f.store,
        prefix: f.prefix,
        standardHeaders: mode,
      };
      await withApp(driver, { options }, async (app) => {
        const one = await get(app.url);
        expect(one.status).toBe(200);
        expect(one.headers).toEqual({ ...first, ...legacy(1, 120) });
        expect((await get(app.url)).status).toBe(200);
        f.now = T0 + 30_000;
        const limited = await get(app.url);
        expect(limited.status).toBe(429);
        expect(limited.headers).toEqual({ ...denied, ...legacy(0, 90), 'retry-after': '60' });
        expect(limited.contentType).toMatch(/^application\/problem\+json/);
        expect(JSON.parse(limited.body)).toMatchObject({ status: 429, 'violated-policies': ['ip'], retryAfter: 60 });
        const text = await get(app.url, '/', { accept: 'text/html' });
        expect(text.status).toBe(429);
        expect(text.contentType).toMatch(/^text\/plain/);
        expect(text.body).toBe('Too many requests; try again in 60 seconds.');
      });
    });

    it('two layers: draft-8 lists both, the binding layer first', async () => {
      const f = fixture(storeName);
      const limits = [
        { name: 'minute', key: byIp(), algorithm: fixedWindow({ limit: 10, window: '1m' }) },
        { name: 'burst', key: byIp(), algorithm: fixedWindow({ limit: 2, window: '10s' }) },
      ];
      await withApp(
        driver,
        { options: { limits, clock: f.clock, store: f.store, prefix: f.prefix, legacyHeaders: false } },
        async (app) => {
          expect((await get(app.url)).headers).toEqual({
            ratelimit: '"burst";r=1;t=10, "minute";r=9;t=60',
            'ratelimit-policy': '"burst";q=2;w=10, "minute";q=10;w=60',
          });
          await get(app.url);
          const limited = await get(app.url);
          expect(limited.status).toBe(429);
          expect(limited.headers.ratelimit).toMatch(/^"burst";r=0;t=10, "minute";r=\d+;t=60$/);
          expect(JSON.parse(limited.body)['violated-policies']).toEqual(['burst']);
        },
      );
    });

    it('skip and allowList let requests through uncounted and without headers', async () => {
      const f = fixture(storeName);
      const skip = (req: unknown) => driver.headerOf(req, 'x-skip') === 'yes';
      const base = { limit: 1, window: '1m', clock: f.clock, store: f.store };
      await withApp(driver, { options: { ...base, prefix: f.prefix, skip } }, async (app) => {
        for (let i = 0; i < 3; i++)
          expect(await get(app.url, '/', { 'x-skip': 'yes' })).toMatchObject({ status: 200, headers: {} });
        expect((await get(app.url)).status).toBe(200);
        expect((await get(app.url)).status).toBe(429);
      });
      await withApp(
        driver,
        { options: { ...base, prefix: `${f.prefix}a`, allowList: ['127.0.0.0/8'] } },
        async (app) => {
          for (let i = 0; i < 3; i++) expect(await get(app.url)).toMatchObject({ status: 200, headers: {} });
        },
      );
      await withApp(
        driver,
        { options: { ...base, prefix: `${f.prefix}b`, allowList: ['10.0.0.0/8', '::1'] } },
        async (app) => {
          expect((await get(app.url)).status).toBe(200);
          expect((await get(app.url)).status).toBe(429);
        },
      );
    });

    it('a route overrides the limit or opts out', async () => {
      const f = fixture(storeName);
      const options = {
        limit: 1,
        window: '1m',
        clock: f.clock,
        store: f.store,
        prefix: f.prefix,
        legacyHeaders: false,
      };
      const special = {
        limit: 3,
        window: '1m',
        clock: f.clock,
        store: f.store,
        prefix: `${f.prefix}s`,
        legacyHeaders: false,
      };
      await withApp(driver, { options, special }, async (app) => {
        const statuses = [];
        for (let i = 0; i < 4; i++) statuses.push((await get(app.url, '/special')).status);
        expect(statuses).toEqual([200, 200, 200, 429]);
        expect((await get(app.url, '/special')).headers['ratelimit-policy']).toBe('"ip";q=3;w=60');
        expect((await get(app.url)).status).toBe(200);
        expect((await get(app.url)).status).toBe(429);
      });
      await withApp(driver, { options: { ...options, prefix: `${f.prefix}d` }, special: false }, async (app) => {
        for (let i = 0; i < 3; i++) expect(await get(app.url, '/special')).toMatchObject({ status: 200, headers: {} });
      });
    });

    it('cost charges n units before the handler; refund(n) gives them back', async () => {
      const f = fixture(storeName);
      const cost = (req: unknown) => Number(driver.headerOf(req, 'x-cost') ?? 1);
      await withApp(
        driver,
        { options: { limit: 5, window: '1m', cost, clock: f.clock, store: f.store, prefix: f.prefix } },
        async (app) => {
          const charged = await get(app.url, '/', { 'x-cost': '3' });
          expect(JSON.parse(charged.body)).toEqual({ remaining: 2, cost: 3, rule: 'ip' });
          expect((await get(app.url, '/', { 'x-cost': '3' })).status).toBe(429);
          expect((await get(app.url, '/?refund=2', { 'x-cost': '2' })).status).toBe(200);
          expect(f.store.refunds).toHaveLength(1);
          expect(JSON.parse((await get(app.url, '/', { 'x-cost': '2' })).body).remaining).toBe(0);
        },
      );
    });

    it('skipFailedRequests refunds failed responses; a late refund never goes below zero', async () => {
      const f = fixture(storeName);
      let release: (() => void) | undefined;
      const hold = () => new Promise<void>((resolve) => (release = resolve));
      const limits = [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 2, window: '1m' }) }];
      const options = { limits, skipFailedRequests: true, clock: f.clock, store: f.store, prefix: f.prefix };
      await withApp(driver, { options, hold }, async (app) => {
        for (let i = 1; i <= 3; i++) {
          expect((await get(app.url, '/status/500')).status).toBe(500);
          await f.store.refunded(i);
        }
        expect((await get(app.url, '/status/404')).status).toBe(404);
        await f.store.refunded(4);
        expect(JSON.parse((await get(app.url)).body).remaining).toBe(1);
        const held = fetch(`${app.url}/status/500/hold`);
        await until(() => release !== undefined);
        f.now = T0 + 60_000;
        release?.();
        await held;
        await f.store.refunded(5);
        f.now = T0 + 60_001;
        expect((await get(app.url, '/status/201')).status).toBe(201);
        expect((await get(app.url)).status).toBe(200);
        expect((await get(app.url)).status).toBe(429);
      });
    });
  });
});
