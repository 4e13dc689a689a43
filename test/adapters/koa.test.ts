import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { byIp, fixedWindow, WarningCode } from '@floodgate/core';
import type { FloodgateWarning } from '@floodgate/core';
import { rateLimit, rateLimitStatus } from '@floodgate/koa';
import type { RateLimitState } from '@floodgate/koa';
import { RedisStore } from '@floodgate/redis';
import { Redis } from 'ioredis';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.ts';
import { get } from './drivers.ts';
import { fixture, storeNames, T0, useRedis } from './suite.ts';

/**
 * What Koa users rely on beyond the shared adapter suites (drivers.ts, controls-apps.ts run Koa
 * through those): the decision on ctx.state (koa2-ratelimit's place), Koa's own proxy settings,
 * the handler, and failMode against a Redis that is gone.
 */

useRedis();

function serve(app: Koa<RateLimitState>): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(app.callback());
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The app: the limiter, then a handler answering the address and decision it saw. */
async function withKoa(
  options: Parameters<typeof rateLimit>[0],
  setup: (app: Koa<RateLimitState>) => void,
  run: (url: string) => Promise<void>,
): Promise<void> {
  const app = new Koa<RateLimitState>();
  setup(app);
  app.use(rateLimit(options));
  app.use((ctx) => {
    const info = ctx.state.rateLimit;
    ctx.body = { ip: ctx.ip, remaining: info?.remaining ?? null, rule: info?.rule ?? null, cost: info?.cost ?? null };
  });
  const running = await serve(app);
  try {
    await run(running.url);
  } finally {
    await running.close();
  }
}

const ipRule = (limit: number) => [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit, window: '1m' }) }];

describe.each(storeNames)('%s store', (storeName) => {
  it('puts the decision on ctx.state.rateLimit, as koa2-ratelimit does, with refund', async () => {
    const f = fixture(storeName);
    const app = new Koa<RateLimitState>();
    app.use(rateLimit({ limits: ipRule(3), store: f.store, clock: f.clock, prefix: f.prefix }));
    app.use(async (ctx) => {
      const info = ctx.state.rateLimit;
      if (ctx.query.refund === '1') await info?.refund();
      ctx.body = { remaining: info?.remaining, limit: info?.limit, cost: info?.cost };
    });
    const running = await serve(app);
    try {
      expect(JSON.parse((await get(running.url)).body)).toEqual({ remaining: 2, limit: 3, cost: 1 });
      expect(JSON.parse((await get(running.url, '/?refund=1')).body)).toEqual({ remaining: 1, limit: 3, cost: 1 });
      // The refunded unit is back: two more pass, the next is refused.
      expect((await get(running.url)).status).toBe(200);
      expect((await get(running.url)).status).toBe(200);
      const denied = await get(running.url);
      expect(denied.status).toBe(429);
      expect(denied.contentType).toBe('application/problem+json');
      expect(JSON.parse(denied.body)).toMatchObject({ status: 429, 'violated-policies': ['ip'] });
      expect(denied.headers).toMatchObject({ 'retry-after': '60', ratelimit: '"ip";r=0;t=60' });
    } finally {
      await running.close();
    }
  });

  it("reads the client as Koa does: the socket's peer while app.proxy is off, whatever X-Forwarded-For says", async () => {
    const f = fixture(storeName);
    const warnings: FloodgateWarning[] = [];
    const options = { limits: ipRule(2), store: f.store, clock: f.clock, prefix: f.prefix };
    await withKoa(
      { ...options, onWarning: (w) => warnings.push(w) },
      () => {},
      async (url) => {
        const statuses = [];
        for (const claimed of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
          statuses.push((await get(url, '/', { 'x-forwarded-for': claimed })).status);
        }
        expect(statuses).toEqual([200, 200, 429]);
      },
    );
    expect(warnings.map((w) => w.code)).toEqual([WarningCode.untrustedForwardedFor]);
  });

  it('with app.proxy and maxIpsCount 1, only the hop the proxy appended counts: a spoofed first entry changes nothing', async () => {
    const f = fixture(storeName);
    const options = { limits: ipRule(2), store: f.store, clock: f.clock, prefix: f.prefix };
    const trustOne = (app: Koa<RateLimitState>) => {
      app.proxy = true;
      app.maxIpsCount = 1;
    };
    await withKoa(options, trustOne, async (url) => {
      const statuses = [];
      for (const spoof of ['1.1.1.1', '2.2.2.2', '3.3.3.3']) {
        const reply = await get(url, '/', { 'x-forwarded-for': `${spoof}, 203.0.113.9` });
        statuses.push(reply.status);
        if (reply.status === 200) expect(JSON.parse(reply.body).ip).toBe('203.0.113.9');
      }
      expect(statuses).toEqual([200, 200, 429]);
      // Another client behind the same proxy has its own quota.
      expect((await get(url, '/', { 'x-forwarded-for': '203.0.113.10' })).status).toBe(200);
    });
  });

  it('honours app.proxyIpHeader (X-Real-IP), and warns that app.proxy without maxIpsCount believes any client', async () => {
    const f = fixture(storeName);
    const warnings: FloodgateWarning[] = [];
    const options = {
      limits: ipRule(1),
      store: f.store,
      clock: f.clock,
      prefix: f.prefix,
      onWarning: (w: FloodgateWarning) => warnings.push(w),
    };
    const realIp = (app: Koa<RateLimitState>) => {
      app.proxy = true;
      app.proxyIpHeader = 'X-Real-IP';
    };
    await withKoa(options, realIp, async (url) => {
      expect((await get(url, '/', { 'x-real-ip': '203.0.113.1' })).status).toBe(200);
      expect((await get(url, '/', { 'x-real-ip': '203.0.113.1' })).status).toBe(429);
      expect((await get(url, '/', { 'x-real-ip': '203.0.113.2' })).status).toBe(200);
      // X-Forwarded-For is not the header this app reads.
      expect((await get(url, '/', { 'x-real-ip': '203.0.113.1', 'x-forwarded-for': '203.0.113.3' })).status).toBe(429);
    });
    expect(warnings.map((w) => w.code)).toEqual([WarningCode.permissiveTrustProxy]);
  });

  it('hands a denial to the handler, the headers already set, and the next middleware does not run', async () => {
    const f = fixture(storeName);
    let ran = 0;
    const app = new Koa<RateLimitState>();
    app.use(
      rateLimit({
        limits: ipRule(1),
        store: f.store,
        clock: f.clock,
        prefix: f.prefix,
        handler: (ctx, decision) => {
          ctx.status = 429;
          ctx.body = { error: 'slow down', retryAfterMs: decision.retryAfter };
        },
      }),
    );
    app.use((ctx) => {
      ran++;
      ctx.body = 'ok';
    });
    const running = await serve(app);
    try {
      expect((await get(running.url)).status).toBe(200);
      const denied = await get(running.url);
      expect([denied.status, JSON.parse(denied.body), denied.headers['retry-after']]).toEqual([
        429,
        { error: 'slow down', retryAfterMs: 60_000 },
        '60',
      ]);
      expect(ran).toBe(1);
    } finally {
      await running.close();
    }
  });

  it('serves the status route ahead of the limiter: a limited client gets its standing, charged nothing', async () => {
    const f = fixture(storeName);
    const app = new Koa<RateLimitState>();
    // The store itself: peeking is not among what WatchedStore passes on.
    const limiter = rateLimit({ limits: ipRule(2), store: f.store.inner, clock: f.clock, prefix: f.prefix });
    const status = rateLimitStatus(limiter);
    app.use((ctx, next) => (ctx.path === '/rate_limit' ? status(ctx, next) : next()));
    app.use(limiter);
    app.use((ctx) => {
      ctx.body = 'ok';
    });
    const running = await serve(app);
    try {
      expect([
        (await get(running.url)).status,
        (await get(running.url)).status,
        (await get(running.url)).status,
      ]).toEqual([200, 200, 429]);
      const report = await get(running.url, '/rate_limit');
      expect(report.status).toBe(200);
      expect(JSON.parse(report.body)).toEqual({
        resources: { ip: { limit: 2, remaining: 0, used: 2, reset: Math.ceil((T0 + 60_000) / 1000) } },
      });
      expect(report.headers.ratelimit).toBe('"ip";r=0;t=60');
    } finally {
      await running.close();
    }
  });
});

it('rateLimitStatus refuses what rateLimit did not make, by name', () => {
  expect(() => rateLimitStatus((() => {}) as never)).toThrow(
    /rateLimitStatus needs a middleware made by rateLimit\(\)/,
  );
});

describe('a Redis that is gone (killed)', () => {
  let redis: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
    await client.connect();
  });
  afterAll(async () => {
    client.disconnect();
    await redis.stop();
  });

  it('failMode closed answers 503, local keeps limiting in memory, open lets everything through', async () => {
    // A frozen clock for the limiter (its local fallback reads it) and the store: the fallback's
    // [200, 200, 429] would be [200, 200, 200] if the wall clock crossed a minute between them.
    const clock = () => T0;
    const store = new RedisStore({ client, clock });
    const apps = await Promise.all(
      (['closed', 'local', 'open'] as const).map(async (failMode) => {
        const app = new Koa<RateLimitState>();
        app.use(
          rateLimit({
            limits: ipRule(2),
            store,
            clock,
            prefix: `dead-${failMode}`,
            failMode,
            onWarning: () => {},
            onStoreError: () => {},
          }),
        );
        app.use((ctx) => {
          ctx.body = { degraded: ctx.state.rateLimit?.degraded ?? null };
        });
        return { failMode, ...(await serve(app)) };
      }),
    );
    try {
      for (const app of apps) expect((await get(app.url)).status, app.failMode).toBe(200);
      await redis.kill();
      const seen: Record<string, number[]> = {};
      for (const app of apps) {
        seen[app.failMode] = [];
        for (let i = 0; i < 3; i++) seen[app.failMode]?.push((await get(app.url)).status);
      }
      // closed: the store is out of reach, so nothing is decided: 503. local: the in-memory fallback
      // still holds the limit of 2 (the request before the kill was counted in Redis, not here).
      // open: no limit at all.
      expect(seen).toEqual({ closed: [503, 503, 503], local: [200, 200, 429], open: [200, 200, 200] });
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  });
});
