import { byHeader, byIp, fixedWindow, tokenBucket } from '@floodgate/core';
import { describe, expect, it } from 'vitest';
import { frameworks, withApps } from './support/controls-apps.ts';
import { backend, storeNames, T0, T0s, useRedisBackend } from './support/controls-backend.ts';
import { call, statuses } from './support/controls-routes.ts';
import type { Answer } from './support/controls-routes.ts';

/**
 * The status route (GitHub's /rate_limit): Express and Hono `rateLimitStatus(middleware)`, Fastify
 * `fastify.floodgate.status`. Its body agrees with its headers, it never costs a unit, it answers a
 * limited client wherever it is mounted, it has a limit of its own, and it reports the caller's own
 * layers only (not shadow rules, not a key other clients share).
 */

useRedisBackend();

const limits = [
  { name: 'minute', key: byIp(), algorithm: fixedWindow({ limit: 5, window: '1m' }) },
  { name: 'hour', key: byIp(), algorithm: fixedWindow({ limit: 20, window: '1h' }) },
  // 3 tokens a second: after 2 requests the bucket is full again 667 ms later, a fraction of a second.
  { name: 'burst', key: byIp(), algorithm: tokenBucket({ capacity: 10, refillRate: 3 }) },
  { name: 'trial', key: byIp(), algorithm: fixedWindow({ limit: 1, window: '1m' }), shadow: true },
];

const FULL = {
  minute: { limit: 5, remaining: 5, used: 0, reset: T0s + 60 },
  hour: { limit: 20, remaining: 20, used: 0, reset: T0s + 3600 },
  burst: { limit: 10, remaining: 10, used: 0, reset: T0s },
};

/** Each rule's `r` and `t` in the draft-8 RateLimit field. */
function states(answer: Answer): Record<string, { r: number; t: number }> {
  const found: Record<string, { r: number; t: number }> = {};
  for (const item of (answer.headers.ratelimit ?? '').split(', ')) {
    const match = /^"([^"]+)";r=(\d+);t=(\d+)$/.exec(item);
    if (match) found[match[1] as string] = { r: Number(match[2]), t: Number(match[3]) };
  }
  return found;
}

/** The body and the headers tell the same story (the clock stands at T0, so t is reset - T0s). */
function expectAgreement(answer: Answer): void {
  const resources = answer.json.resources as Record<string, { remaining: number; reset: number }>;
  const fromHeaders = states(answer);
  expect(Object.keys(fromHeaders).sort()).toEqual(Object.keys(resources).sort());
  for (const [rule, resource] of Object.entries(resources)) {
    expect(fromHeaders[rule], rule).toEqual({ r: resource.remaining, t: resource.reset - T0s });
  }
}

describe.each(storeNames)('%s store', (storeName) => {
  describe.each(frameworks)('$name', (framework) => {
    it('answers limit, remaining, used and reset per enforced rule, as its headers do; shadow rules are left out', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits }))], async (app) => {
        expect(await statuses(app.url, 2)).toEqual([200, 200]);
        const status = await call(app.url, '/rate_limit');
        expect(status.status).toBe(200);
        expect(status.contentType).toMatch(/^application\/json/);
        expect(status.cacheControl).toBe('no-store');
        expect(status.json).toEqual({
          resources: {
            minute: { limit: 5, remaining: 3, used: 2, reset: T0s + 60 },
            hour: { limit: 20, remaining: 18, used: 2, reset: T0s + 3600 },
            // Full again at T0 + 667 ms: epoch seconds rounded up.
            burst: { limit: 10, remaining: 8, used: 2, reset: T0s + 1 },
          },
        });
        expectAgreement(status);
        expect(status.headers['x-ratelimit-remaining']).toBe('3');
        expect(status.headers['x-ratelimit-reset']).toBe(String(T0s + 60));
        expect(status.headers['ratelimit-policy']).not.toContain('trial');
        expect(status.headers['retry-after']).toBeUndefined();
      });
    });

    it('never charges: after 50 calls the next request still has the full quota', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits }))], async (app) => {
        for (let i = 0; i < 50; i++) expect((await call(app.url, '/rate_limit')).json.resources).toEqual(FULL);
        expect((await call(app.url, '/')).json.results.slice(0, 3)).toEqual([
          { rule: 'minute', allowed: true, remaining: 4, limit: 5, shadow: false },
          { rule: 'hour', allowed: true, remaining: 19, limit: 20, shadow: false },
          { rule: 'burst', allowed: true, remaining: 9, limit: 10, shadow: false },
        ]);
      });
    });

    it('mounted ahead of the limit, it answers a client that is refused everywhere else', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits }))], async (app) => {
        expect(await statuses(app.url, 6)).toEqual([200, 200, 200, 200, 200, 429]);
        const status = await call(app.url, '/rate_limit');
        expect(status.status).toBe(200);
        expect(status.json.resources.minute).toEqual({ limit: 5, remaining: 0, used: 5, reset: T0s + 60 });
        expectAgreement(status);
        expect((await call(app.url, '/')).status).toBe(429);
      });
    });

    // Koa has no routing table for the middleware to read: there the status route goes ahead of the
    // limiter, and one behind it is the /wrapped case below (charged, given back, warned about).
    const routesReadable = framework.name !== 'koa';
    if (routesReadable)
      it('mounted after the app-wide middleware, or in a router, it still answers a client the middleware limits, and charges nothing', async () => {
        const b = backend(storeName);
        await withApps([framework.start(b.options({ limits }))], async (app) => {
          for (let i = 0; i < 20; i++) {
            for (const path of ['/behind/rate_limit', '/nested/rate_limit']) {
              const status = await call(app.url, path);
              expect(status.status, path).toBe(200);
              expect(status.json.resources, path).toEqual(FULL);
              expectAgreement(status);
            }
          }
          expect(await statuses(app.url, 6)).toEqual([200, 200, 200, 200, 200, 429]);
          for (const path of ['/behind/rate_limit', '/nested/rate_limit']) {
            const status = await call(app.url, path);
            expect(status.status, path).toBe(200);
            expect(status.json.resources.minute, path).toEqual({ limit: 5, remaining: 0, used: 5, reset: T0s + 60 });
            expectAgreement(status);
          }
          expect(b.codes()).not.toContain('WARN_FLOODGATE_STATUS_BEHIND');
        });
      });

    it('called from a limited handler the middleware cannot tell apart, it gives back the unit, and warns that a limited client gets 429 there', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits }))], async (app) => {
        for (let i = 0; i < 10; i++) {
          const status = await call(app.url, '/wrapped/rate_limit');
          expect(status.status).toBe(200);
          expect(status.json.resources).toEqual(FULL);
          expectAgreement(status);
        }
        expect(b.codes()).toEqual(['WARN_FLOODGATE_STATUS_BEHIND']);
        expect(await statuses(app.url, 6)).toEqual([200, 200, 200, 200, 200, 429]);
        expect((await call(app.url, '/wrapped/rate_limit')).status).toBe(429);
      });
    });

    it('has a limit of its own per client address: 60 a minute, refused beyond with Retry-After, the store not asked', async () => {
      const b = backend(storeName);
      const peeks: string[] = [];
      const onStoreCall = ({ operation }: { operation: string }) => {
        if (operation === 'peek') peeks.push(operation);
      };
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      await withApps([framework.start(b.options({ limits, onStoreCall }), ['127.0.0.1'])], async (app) => {
        for (const path of ['/rate_limit', '/behind/rate_limit']) {
          for (let i = 0; i < 30; i++) expect((await call(app.url, path, from('198.51.100.1'))).status).toBe(200);
        }
        const refused = await call(app.url, '/rate_limit', from('198.51.100.1'));
        expect([refused.status, refused.headers['retry-after']]).toEqual([429, '60']);
        expect((await call(app.url, '/behind/rate_limit', from('198.51.100.1'))).status).toBe(429);
        expect((await call(app.url, '/rate_limit', from('198.51.100.2'))).status).toBe(200);
        if (storeName === 'redis') expect(peeks).toHaveLength(61);
        // The rules were never charged for it, and the next minute it answers again.
        expect((await call(app.url, '/', from('198.51.100.1'))).json.remaining).toBe(4);
        b.now = T0 + 60_000;
        expect((await call(app.url, '/rate_limit', from('198.51.100.1'))).status).toBe(200);
      });
    });

    it("reports the caller's own layers only: a global ceiling's and a tenant's usage are other clients' traffic", async () => {
      const b = backend(storeName);
      const mixed = [
        { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 5, window: '1m' }) },
        { name: 'global', key: () => 'charges', algorithm: fixedWindow({ limit: 100, window: '1m' }) },
        { name: 'tenant', key: byHeader('x-tenant-id'), algorithm: fixedWindow({ limit: 50, window: '1m' }) },
      ];
      const acme = { 'x-tenant-id': 'acme' };
      await withApps([framework.start(b.options({ limits: mixed }))], async (app) => {
        expect(await statuses(app.url, 3, '/', acme)).toEqual([200, 200, 200]);
        for (const path of ['/rate_limit', '/behind/rate_limit']) {
          const status = await call(app.url, path, acme);
          expect(status.json, path).toEqual({
            resources: { ip: { limit: 5, remaining: 2, used: 3, reset: T0s + 60 } },
          });
          expect(status.headers['ratelimit-policy'], path).toBe('"ip";q=5;w=60');
          expectAgreement(status);
        }
      });
    });

    it('reports the caller under the address the middleware uses: an untrusted X-Forwarded-For changes nothing', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits }))], async (app) => {
        await statuses(app.url, 2);
        const spoofed = await call(app.url, '/rate_limit', { 'x-forwarded-for': '198.51.100.77' });
        expect(spoofed.json.resources.minute.used).toBe(2);
      });
      const trusted = backend(storeName);
      await withApps([framework.start(trusted.options({ limits }), ['127.0.0.1'])], async (app) => {
        await statuses(app.url, 2, '/', { 'x-forwarded-for': '198.51.100.1' });
        const other = await call(app.url, '/rate_limit', { 'x-forwarded-for': '198.51.100.2' });
        expect(other.json.resources.minute.used).toBe(0);
        const same = await call(app.url, '/rate_limit', { 'x-forwarded-for': '198.51.100.1' });
        expect(same.json.resources.minute.used).toBe(2);
      });
    });

    it('with every rule in shadow mode, it reports no resource and sends no rate-limit field', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits, shadow: true }))], async (app) => {
        await statuses(app.url, 3);
        for (const path of ['/rate_limit', '/behind/rate_limit']) {
          const status = await call(app.url, path);
          expect(status.json).toEqual({ resources: {} });
          expect(status.headers).toEqual({});
        }
      });
    });
  });
});
