import { byIp, fixedWindow, MemoryStore, WarningCode } from '@floodgate/core';
import type { FloodgateWarning, Store } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisForSuite } from '../../../test/helpers/redis-server.ts';
import { FloodgateGuard } from '../src/index';
import type { NestRequest } from '../src/index';
import { platforms, QUOTA_EXCEEDED_IP, startNest } from './apps';
import type { AppShape, NestTestApp, Platform } from './apps';

/**
 * The guard over real HTTP, on @nestjs/platform-express and @nestjs/platform-fastify, with a
 * MemoryStore and a RedisStore (a private redis-server), on a frozen clock.
 */

const T0 = Date.UTC(2026, 0, 1);
const clock = () => T0;
let redis: { url: string; stop(): Promise<void> };
let client: Redis;
let sequence = 0;

beforeAll(async () => {
  redis = await redisForSuite();
  client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
  await client.connect();
});
afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

const stores: Record<string, () => Store> = {
  memory: () => new MemoryStore({ clock }),
  redis: () => new RedisStore({ client, clock }),
};

const rule = (name: string, limit: number) => ({ name, key: byIp(), algorithm: fixedWindow({ limit, window: '1m' }) });

interface Reply {
  status: number;
  headers: Headers;
  body: string;
  json: () => unknown;
}

async function call(base: string, path: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(base + path, { method: init.method ?? 'GET', headers: init.headers ?? {} });
  const body = await response.text();
  return { status: response.status, headers: response.headers, body, json: () => JSON.parse(body) } as Reply;
}

async function statuses(base: string, path: string, n: number, init: Parameters<typeof call>[2] = {}) {
  const seen: number[] = [];
  for (let i = 0; i < n; i++) seen.push((await call(base, path, init)).status);
  return seen;
}

async function withNest(
  platform: Platform,
  options: Record<string, unknown>,
  shape: AppShape,
  run: (app: NestTestApp) => Promise<void>,
): Promise<void> {
  const app = await startNest(platform, options, shape);
  try {
    await run(app);
  } finally {
    await app.close();
  }
}

describe.each(Object.keys(stores))('%s store', (storeName) => {
  describe.each(platforms)('%s platform', (platform) => {
    const base = (extra: Record<string, unknown> = {}) => ({
      limits: [rule('ip', 3)],
      store: (stores[storeName] as () => Store)(),
      clock,
      prefix: `nest${process.pid}x${++sequence}`,
      onWarning: () => {},
      ...extra,
    });

    it('denies with RateLimitException: 429, problem+json body and the headers of the other adapters', async () => {
      await withNest(platform, base(), {}, async (app) => {
        for (let left = 2; left >= 0; left--) {
          const ok = await call(app.url, '/items');
          expect(ok.status).toBe(200);
          expect(ok.json()).toEqual({ remaining: left, rule: 'ip', limit: 3 });
          expect(ok.headers.get('ratelimit')).toBe(`"ip";r=${left};t=60`);
        }
        const denied = await call(app.url, '/items', { headers: { accept: 'application/json' } });
        expect(denied.status).toBe(429);
        expect(denied.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(denied.headers.get('retry-after')).toBe('60');
        expect(denied.headers.get('ratelimit')).toBe('"ip";r=0;t=60');
        expect(denied.headers.get('ratelimit-policy')).toBe('"ip";q=3;w=60');
        expect(denied.headers.get('x-ratelimit-limit')).toBe('3');
        // The same bytes as the other adapters send: these fields, in this order, no spaces.
        expect(denied.body).toBe(JSON.stringify(QUOTA_EXCEEDED_IP));
      });
    });

    it('counts the module rules once across routes by default; perRoute counts each route on its own, as @nestjs/throttler does', async () => {
      await withNest(platform, base(), {}, async (app) => {
        expect([...(await statuses(app.url, '/items', 2)), ...(await statuses(app.url, '/other', 2))]).toEqual([
          200, 200, 200, 429,
        ]);
      });
      await withNest(platform, base({ perRoute: true }), {}, async (app) => {
        expect(await statuses(app.url, '/items', 4)).toEqual([200, 200, 200, 429]);
        expect(await statuses(app.url, '/other', 4)).toEqual([200, 200, 200, 429]);
      });
    });

    it('@RateLimit({ limit, window }) gives a handler its own counter; on a class, each handler its own', async () => {
      await withNest(platform, base(), {}, async (app) => {
        expect(await statuses(app.url, '/login', 3, { method: 'POST' })).toEqual([201, 201, 429]);
        // The login counter is the route's: the module's quota is untouched...
        expect((await call(app.url, '/items')).json()).toEqual({ remaining: 2, rule: 'ip', limit: 3 });
        // ...and each handler of a class with @RateLimit counts for itself.
        expect(await statuses(app.url, '/limited/a', 2)).toEqual([200, 429]);
        expect(await statuses(app.url, '/limited/b', 2)).toEqual([200, 429]);
      });
    });

    it('@RateLimit that changes only the answer counts in the module counters, with its own 429 body', async () => {
      await withNest(platform, base(), {}, async (app) => {
        expect(await statuses(app.url, '/items', 3)).toEqual([200, 200, 200]);
        const denied = await call(app.url, '/quiet');
        expect([denied.status, denied.json(), denied.headers.get('retry-after')]).toEqual([
          429,
          { error: 'quiet please' },
          '60',
        ]);
        expect(denied.headers.get('content-type')).toMatch(/^application\/json/);
      });
    });

    it('@SkipRateLimit() skips a route; @SkipRateLimit(name) skips that rule, the others still count in the same counters', async () => {
      await withNest(platform, base({ limits: [rule('ip', 3), rule('burst', 1)] }), {}, async (app) => {
        for (let i = 0; i < 5; i++) {
          const health = await call(app.url, '/health');
          expect([health.status, health.json(), health.headers.get('ratelimit')]).toEqual([
            200,
            { ok: true, seen: null },
            null,
          ]);
        }
        const first = await call(app.url, '/no-burst');
        expect([first.status, first.json()]).toEqual([200, { remaining: 2, rule: 'ip', limit: 3 }]);
        // The burst rule was not charged there: /items still has its one burst unit, then 429 from it.
        expect(await statuses(app.url, '/items', 2)).toEqual([200, 429]);
        // /no-burst's 'ip' counter is the module's: one left after /no-burst and /items.
        expect(await statuses(app.url, '/no-burst', 2)).toEqual([200, 429]);
      });
    });

    it('reads the client as the platform does: X-Forwarded-For is ignored until the platform trusts the proxy', async () => {
      const spoofed = async (app: NestTestApp) => {
        const seen: number[] = [];
        for (const ip of ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4']) {
          seen.push((await call(app.url, '/items', { headers: { 'x-forwarded-for': ip } })).status);
        }
        return seen;
      };
      const warnings: FloodgateWarning[] = [];
      await withNest(platform, base({ onWarning: (w: FloodgateWarning) => warnings.push(w) }), {}, async (app) => {
        expect(await spoofed(app)).toEqual([200, 200, 200, 429]);
      });
      expect(warnings.map((w) => w.code)).toContain(WarningCode.untrustedForwardedFor);
      await withNest(platform, base(), { trustProxy: true }, async (app) => {
        expect(await spoofed(app)).toEqual([200, 200, 200, 200]);
        expect(await statuses(app.url, '/items', 3, { headers: { 'x-forwarded-for': '198.51.100.1' } })).toEqual([
          200, 200, 429,
        ]);
      });
    });

    it('FloodgateService: peek charges nothing, block denies on every route, unblock and reset give the quota back', async () => {
      await withNest(platform, base(), {}, async (app) => {
        expect(await statuses(app.url, '/items', 2)).toEqual([200, 200]);
        expect((await call(app.url, '/control/peek')).json()).toEqual({ allowed: true, remaining: 0 });
        expect((await call(app.url, '/control/peek')).json()).toEqual({ allowed: true, remaining: 0 });
        await call(app.url, '/control/block');
        expect(await statuses(app.url, '/other', 1)).toEqual([429]);
        await call(app.url, '/control/unblock');
        await call(app.url, '/control/reset');
        expect(await statuses(app.url, '/items', 4)).toEqual([200, 200, 200, 429]);
      });
    });

    it('the status controller answers a limited client its standing, uncharged, with no-store', async () => {
      await withNest(platform, base(), { statusPath: 'rate_limit' }, async (app) => {
        expect(await statuses(app.url, '/items', 4)).toEqual([200, 200, 200, 429]);
        for (let i = 0; i < 3; i++) {
          const status = await call(app.url, '/rate_limit');
          expect(status.status).toBe(200);
          expect(status.json()).toEqual({
            resources: { ip: { limit: 3, remaining: 0, used: 3, reset: T0 / 1000 + 60 } },
          });
          expect(status.headers.get('cache-control')).toBe('no-store');
          expect(status.headers.get('ratelimit')).toBe('"ip";r=0;t=60');
        }
      });
    });

    it('on a controller only (@UseGuards), with forRootAsync: the other controllers are not limited', async () => {
      await withNest(platform, base(), { guard: 'controller', async: true }, async (app) => {
        expect(await statuses(app.url, '/items', 4)).toEqual([200, 200, 200, 429]);
        expect(await statuses(app.url, '/open', 5)).toEqual([200, 200, 200, 200, 200]);
        expect((await call(app.url, '/open')).headers.get('ratelimit')).toBeNull();
      });
    });

    it('a subclass with its own getTracker decides who the client is (here a header the test trusts)', async () => {
      class ByClientId extends FloodgateGuard {
        override getTracker(req: NestRequest): string | undefined {
          return req.headers['x-client-id'];
        }
      }
      await withNest(platform, base(), { guardClass: ByClientId }, async (app) => {
        const as = (id: string) => ({ headers: { 'x-client-id': id } });
        expect(await statuses(app.url, '/items', 4, as('10.0.0.1'))).toEqual([200, 200, 200, 429]);
        expect(await statuses(app.url, '/items', 1, as('10.0.0.2'))).toEqual([200]);
      });
    });
  });
});
