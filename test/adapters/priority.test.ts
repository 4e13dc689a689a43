import { byIp, fixedWindow, tokenBucket } from '@floodgate/core';
import { describe, expect, it } from 'vitest';
import { frameworks, withApps } from './support/controls-apps.ts';
import { backend, storeNames, useRedisBackend } from './support/controls-backend.ts';
import { call, statuses } from './support/controls-routes.ts';
import type { Framework } from './support/controls-apps.ts';

/**
 * A reserve kept for critical requests, through every adapter, against both stores: normal
 * requests stop where the reserve begins, critical ones go on to the limit, and each sees in the
 * headers what its own priority can still use. Nothing a client sends makes it critical unless the
 * app's priority function says exactly 'critical'.
 */

useRedisBackend();

const INVALID_COST = 'WARN_FLOODGATE_INVALID_COST';
const PRIORITY_FAILED = 'WARN_FLOODGATE_PRIORITY_FAILED';
const OPS = { 'x-api-key': 'ops-key' };

/** Critical for the operators' API key, normal for everyone else. */
const opsFirst = (framework: Framework) => (req: unknown) =>
  framework.headerOf(req, 'x-api-key') === 'ops-key' ? ('critical' as const) : ('normal' as const);

/** limit 10, of which 2 are kept for critical requests. */
const reserved = [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 10, window: '1m', reserve: 0.2 }) }];

async function remainingOf(url: string, headers: Record<string, string> = {}) {
  const answer = await call(url, '/', headers);
  return { status: answer.status, remaining: answer.headers['x-ratelimit-remaining'] };
}

describe.each(storeNames)('%s store', (storeName) => {
  describe.each(frameworks)('$name', (framework) => {
    it('middleware priority: normal requests stop at limit - reserve, critical ones go on to the limit', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: reserved, priority: opsFirst(framework) }))], async (app) => {
        const seen = [];
        for (let i = 0; i < 3; i++) seen.push(await remainingOf(app.url));
        seen.push(await remainingOf(app.url, OPS));
        for (let i = 0; i < 4; i++) seen.push(await remainingOf(app.url));
        expect(seen).toEqual([
          { status: 200, remaining: '7' },
          { status: 200, remaining: '6' },
          { status: 200, remaining: '5' },
          // The same key seen by a critical request: its own view includes the reserve.
          { status: 200, remaining: '6' },
          { status: 200, remaining: '3' },
          { status: 200, remaining: '2' },
          { status: 200, remaining: '1' },
          { status: 200, remaining: '0' },
        ]);
        const refused = await call(app.url);
        expect(refused.status).toBe(429);
        expect(refused.headers['retry-after']).toBe('60');
        expect(await remainingOf(app.url, OPS)).toEqual({ status: 200, remaining: '1' });
        expect(await remainingOf(app.url, OPS)).toEqual({ status: 200, remaining: '0' });
        expect((await call(app.url, '/', OPS)).status).toBe(429);
        expect((await call(app.url)).status).toBe(429);
      });
    });

    it("rule priority: a rule's own function (and a reserve in units) wins over the middleware's", async () => {
      const b = backend(storeName);
      const limits = [
        {
          name: 'bucket',
          key: byIp(),
          algorithm: tokenBucket({ capacity: 5, refillRate: 1, reserve: 2 }),
          priority: opsFirst(framework),
        },
        { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 100, window: '1m' }) },
      ];
      const options = b.options({ limits, priority: () => 'normal' as const });
      await withApps([framework.start(options)], async (app) => {
        expect(await statuses(app.url, 4)).toEqual([200, 200, 200, 429]);
        expect(await statuses(app.url, 3, '/', OPS)).toEqual([200, 200, 429]);
      });
    });

    it('a normal request costing more than limit - reserve is refused without Retry-After, and warned once', async () => {
      const b = backend(storeName);
      const cost = (req: unknown) => Number(framework.headerOf(req, 'x-cost') ?? 1);
      await withApps(
        [framework.start(b.options({ limits: reserved, priority: opsFirst(framework), cost }))],
        async (app) => {
          for (let i = 0; i < 3; i++) {
            const refused = await call(app.url, '/', { 'x-cost': '9' });
            expect(refused.status).toBe(429);
            expect(refused.headers).toEqual({});
          }
          const critical = await call(app.url, '/', { 'x-cost': '9', ...OPS });
          expect(critical.json).toMatchObject({ allowed: true, remaining: 1 });
          expect((await call(app.url, '/', { 'x-cost': '11', ...OPS })).headers).toEqual({});
          expect(b.codes().filter((code) => code === INVALID_COST)).toEqual([INVALID_COST]);
          // The refused requests were not charged: 10 - 9 left one unit, for critical requests only.
          expect((await call(app.url, '/', OPS)).json).toMatchObject({ allowed: true, remaining: 0 });
        },
      );
    });

    it('a priority function that throws makes the request normal, warned once', async () => {
      const b = backend(storeName);
      const priority = (req: unknown) => {
        if (framework.headerOf(req, 'x-api-key') !== undefined) throw new Error('cannot read the key table');
        return 'normal' as const;
      };
      await withApps([framework.start(b.options({ limits: reserved, priority }))], async (app) => {
        const seen = await statuses(app.url, 9, '/', OPS);
        expect(seen).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
        expect(b.codes().filter((code) => code === PRIORITY_FAILED)).toEqual([PRIORITY_FAILED]);
      });
    });

    it("only the exact answer 'critical' opens the reserve, whatever the client sends", async () => {
      const b = backend(storeName);
      // An app that (unwisely) answers from a header: only the exact string may count.
      const priority = (req: unknown) => {
        const asked = framework.headerOf(req, 'x-priority');
        if (asked === 'array') return ['critical'];
        if (asked === 'boxed') return new String('critical');
        if (asked === 'yes') return true;
        return asked;
      };
      await withApps([framework.start(b.options({ limits: reserved, priority }))], async (app) => {
        const asks = ['Critical', 'CRITICAL', 'critical, critical', 'critical;q=1', 'array', 'boxed', 'yes', 'high'];
        for (const asked of asks) expect((await call(app.url, '/', { 'x-priority': asked })).status).toBe(200);
        expect((await call(app.url, '/', { 'x-priority': 'CRITICAL' })).status).toBe(429);
        expect((await call(app.url, '/', { 'x-priority': 'critical' })).status).toBe(200);
      });
    });

    it('issue 19.3: a critical route opens the reserve; its path in the query string or elsewhere does not', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: reserved }))], async (app) => {
        expect(await statuses(app.url, 9)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
        // What the core README's old snippet (`req.url.endsWith('/capture')`) let through.
        for (const path of ['/?x=/capture', '/charges?x=/capture/1', '/x/capture', '/capture', '/orders/1/capture']) {
          expect((await call(app.url, path)).status, path).toBe(429);
        }
        expect((await call(app.url, '/capture/1?x=1')).json).toMatchObject({ allowed: true, remaining: 1, limit: 10 });
        expect((await call(app.url, '/capture/2')).json).toMatchObject({ allowed: true, remaining: 0 });
        expect((await call(app.url, '/capture/3')).status).toBe(429);
        expect(b.codes()).toEqual([]);
      });
    });

    it("issue 19.3: a critical route stands for the middleware's priority function; a rule's own still decides", async () => {
      const b = backend(storeName);
      const limits = [
        { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 10, window: '1m', reserve: 2 }) },
        {
          name: 'bucket',
          key: byIp(),
          algorithm: tokenBucket({ capacity: 5, refillRate: 1, reserve: 2 }),
          priority: () => 'normal' as const,
        },
      ];
      await withApps([framework.start(b.options({ limits, priority: () => 'normal' as const }))], async (app) => {
        const seen = [];
        for (let i = 0; i < 4; i++) seen.push((await call(app.url, `/capture/${i}`)).json?.results);
        expect(seen.map((results) => results?.map((layer: { remaining: number }) => layer.remaining))).toEqual([
          [9, 2],
          [8, 1],
          [7, 0],
          undefined,
        ]);
      });
    });

    it("issue 19.3: a priority word other than 'critical' or 'normal' is refused at startup, naming the option", async () => {
      const b = backend(storeName);
      await expect(framework.start(b.options({ limits: reserved, priority: 'high' }))).rejects.toMatchObject({
        code: 'ERR_FLOODGATE_INVALID_OPTION',
        message: expect.stringMatching(/\.priority must be one of 'critical', 'normal', got "high"$/),
      });
    });

    it("the status route reports the caller's own standing: a fresh normal caller has used nothing", async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: reserved, priority: opsFirst(framework) }))], async (app) => {
        const normal = (await call(app.url, '/rate_limit')).json.resources.ip;
        expect(normal).toMatchObject({ remaining: 8, used: 0 });
        const critical = (await call(app.url, '/rate_limit', OPS)).json.resources.ip;
        expect(critical).toMatchObject({ limit: 10, remaining: 10, used: 0 });
      });
    });
  });
});

describe.each(storeNames)('%s store', (storeName) => {
  describe.each(frameworks.filter((framework) => !framework.name.startsWith('fastify')))('$name', (framework) => {
    it('issue 19.3: `.critical` behind the app-wide middleware counts the request once, as normal, and says so once', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: reserved }))], async (app) => {
        expect((await call(app.url, '/late/1')).json).toMatchObject({ allowed: true, remaining: 7, limit: 8 });
        expect((await call(app.url, '/late/2')).json).toMatchObject({ allowed: true, remaining: 6, limit: 8 });
        expect(b.codes()).toEqual(['WARN_FLOODGATE_PRIORITY_LATE']);
      });
    });
  });
});
