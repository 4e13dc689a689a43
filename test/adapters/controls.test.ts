import { byHeader, byIp, fixedWindow } from '@floodgate/core';
import { describe, expect, it } from 'vitest';
import { contextOf } from '../helpers/context.ts';
import { frameworks, withApps } from './support/controls-apps.ts';
import { backend, storeNames, T0, useRedisBackend } from './support/controls-backend.ts';
import { call, statuses } from './support/controls-routes.ts';

/**
 * The middleware's controls (peek, reset, block, unblock) through every adapter, against both
 * stores: each acts on the keys the middleware gives the calling request, no other.
 */

useRedisBackend();

/** The app believes X-Forwarded-For from the test client, so each test picks its clients' addresses. */
const TRUSTED = ['127.0.0.1'];
const from = (ip: string) => ({ 'x-forwarded-for': ip });
const alice = from('203.0.113.5');
const bob = from('203.0.113.6');

/** A per-client layer beside a global ceiling and a tenant layer keyed by a header any client can send. */
const shared = [
  { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 5, window: '1m' }) },
  { name: 'global', key: () => 'charges', algorithm: fixedWindow({ limit: 100, window: '1m' }) },
  { name: 'tenant', key: byHeader('x-tenant-id'), algorithm: fixedWindow({ limit: 50, window: '1m' }) },
];
const of = (ip: string, tenant: string) => ({ ...from(ip), 'x-tenant-id': tenant });

const oneRule = [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 3, window: '1m' }) }];
const twoRules = [
  { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 2, window: '1m' }) },
  { name: 'daily', key: byIp(), algorithm: fixedWindow({ limit: 5, window: '1d' }) },
];

describe.each(storeNames)('%s store', (storeName) => {
  describe.each(frameworks)('$name', (framework) => {
    it('peek answers what the next request would get, charges nothing, and is keyed as the middleware keys it', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: oneRule }), TRUSTED)], async (app) => {
        expect(await statuses(app.url, 2, '/', alice)).toEqual([200, 200]);
        for (let i = 0; i < 5; i++) {
          const peeked = await call(app.url, '/control/peek', alice);
          expect(peeked.json).toMatchObject({ allowed: true, remaining: 0, limit: 3, rule: 'ip' });
        }
        expect((await call(app.url, '/control/peek?cost=2', alice)).json).toMatchObject({
          allowed: false,
          retryAfter: 60_000,
        });
        expect((await call(app.url, '/control/peek', bob)).json).toMatchObject({ allowed: true, remaining: 2 });
        // The middleware's own limiter sees the same key: byIp of the address the framework resolved.
        expect((await app.controls.limiter.peek(contextOf({ ip: '203.0.113.5' }))).remaining).toBe(0);
        expect(await statuses(app.url, 2, '/', alice)).toEqual([200, 429]);
      });
    });

    it('without trust in a proxy, X-Forwarded-For changes neither whose quota peek reads nor who is limited', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: oneRule }))], async (app) => {
        expect(await statuses(app.url, 3, '/', alice)).toEqual([200, 200, 200]);
        expect((await call(app.url, '/control/peek', bob)).json).toMatchObject({ allowed: false, remaining: 0 });
        expect((await call(app.url, '/', bob)).status).toBe(429);
        // A reset sent "as" another address resets the caller's own key, the only one it has.
        expect((await call(app.url, '/control/reset', bob)).status).toBe(200);
        expect((await call(app.url, '/control/peek')).json).toMatchObject({ allowed: true, remaining: 2 });
      });
    });

    it('reset after exhausting gives a fresh quota: to the caller only, and to the rule named only', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: twoRules }), TRUSTED)], async (app) => {
        expect(await statuses(app.url, 3, '/', alice)).toEqual([200, 200, 429]);
        expect(await statuses(app.url, 3, '/', bob)).toEqual([200, 200, 429]);
        expect((await call(app.url, '/control/reset?rule=ip', alice)).json).toEqual({ done: 'reset' });
        expect(await statuses(app.url, 3, '/', alice)).toEqual([200, 200, 429]);
        // The daily rule kept its 4: one unit left, which the next fresh ip quota runs into.
        const peeked = await call(app.url, '/control/peek?cost=0', alice);
        expect(peeked.json.results).toEqual([
          { rule: 'ip', allowed: true, remaining: 0, limit: 2, shadow: false },
          { rule: 'daily', allowed: true, remaining: 1, limit: 5, shadow: false },
        ]);
        expect((await call(app.url, '/control/reset?rule=ip', alice)).status).toBe(200);
        const last = [await call(app.url, '/', alice), await call(app.url, '/', alice)];
        expect(last.map((answer) => answer.status)).toEqual([200, 429]);
        expect(last[1]?.json['violated-policies']).toEqual(['daily']);
        expect((await call(app.url, '/', bob)).status).toBe(429);
        expect((await call(app.url, '/control/reset', alice)).status).toBe(200);
        expect(await statuses(app.url, 3, '/', alice)).toEqual([200, 200, 429]);
      });
    });

    it('block denies with Retry-After = its duration on every instance sharing the store, until unblock or its end', async () => {
      const b = backend(storeName);
      const starts = [0, 1].map(() => framework.start(b.options({ limits: oneRule }), TRUSTED));
      await withApps(starts, async (one, two) => {
        expect((await call(one.url, '/', alice)).status).toBe(200);
        expect((await call(one.url, '/control/block?ms=30000', alice)).json).toEqual({ done: 'block' });
        for (const app of [one, two]) {
          const denied = await call(app.url, '/', alice);
          expect(denied.status).toBe(429);
          expect(denied.headers['retry-after']).toBe('30');
          expect((await call(app.url, '/', bob)).status).toBe(200);
        }
        b.now = T0 + 10_000;
        expect((await call(two.url, '/', alice)).headers['retry-after']).toBe('20');
        expect((await call(two.url, '/control/unblock', alice)).json).toEqual({ done: 'unblock' });
        // Requests refused during the block were not counted: 3 - 1 - 1 left.
        expect((await call(two.url, '/', alice)).json).toMatchObject({ allowed: true, remaining: 1 });

        expect((await call(two.url, '/control/block?ms=5s', bob)).status).toBe(200);
        expect((await call(one.url, '/', bob)).headers['retry-after']).toBe('5');
        b.now = T0 + 15_000;
        expect((await call(one.url, '/', bob)).json).toMatchObject({ allowed: true, remaining: 0 });
      });
    });

    it('with denyCache off, an unblock on one instance lifts the block on the others at once', async () => {
      const b = backend(storeName);
      const starts = [0, 1].map(() => framework.start(b.options({ limits: oneRule, denyCache: false }), TRUSTED));
      await withApps(starts, async (one, two) => {
        expect((await call(one.url, '/control/block?ms=60000', alice)).status).toBe(200);
        expect((await call(one.url, '/', alice)).status).toBe(429);
        expect((await call(two.url, '/', alice)).status).toBe(429);
        expect((await call(two.url, '/control/unblock', alice)).status).toBe(200);
        expect((await call(one.url, '/', alice)).status).toBe(200);
        expect((await call(two.url, '/', alice)).status).toBe(200);
      });
    });

    it('block of one rule denies under that rule; the other rule is not charged meanwhile', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: twoRules }), TRUSTED)], async (app) => {
        expect((await call(app.url, '/control/block?ms=60000&rule=daily', alice)).status).toBe(200);
        const denied = await call(app.url, '/', alice);
        expect(denied.status).toBe(429);
        expect(denied.json['violated-policies']).toEqual(['daily']);
        expect((await call(app.url, '/control/unblock?rule=daily', alice)).status).toBe(200);
        expect((await call(app.url, '/', alice)).json).toMatchObject({ allowed: true, remaining: 1, rule: 'ip' });
      });
    });

    it('a control naming no rule of the middleware, or an unusable duration, rejects and changes nothing', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: twoRules }), TRUSTED)], async (app) => {
        expect(await statuses(app.url, 3, '/', alice)).toEqual([200, 200, 429]);
        for (const path of ['reset?rule=nope', 'reset?rule=', 'reset?rule=IP', 'unblock?rule=nope']) {
          const rejected = await call(app.url, `/control/${path}`, alice);
          expect(rejected.status, path).toBe(400);
          expect(rejected.json.code, path).toBe('ERR_FLOODGATE_INVALID_OPTION');
        }
        expect((await call(app.url, '/control/reset?rule=nope', alice)).json.message).toContain('nope');
        expect((await call(app.url, '/', alice)).status).toBe(429);
        for (const path of ['block?ms=60000&rule=nope', 'block?ms=0', 'block?ms=-1', 'block?ms=soon']) {
          const rejected = await call(app.url, `/control/${path}`, bob);
          expect(rejected.status, path).toBe(400);
          expect(rejected.json.code, path).toBe('ERR_FLOODGATE_INVALID_OPTION');
        }
        expect((await call(app.url, '/control/block?ms=60000&rule=nope', bob)).json.message).toContain('nope');
        expect((await call(app.url, '/', bob)).status).toBe(200);
      });
    });
    it('block, reset and unblock for one request never touch a key other clients share: a global ceiling, a client-named tenant', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: shared }), TRUSTED)], async (app) => {
        const alice = of('203.0.113.5', 'acme');
        const bob = of('203.0.113.6', 'acme');
        const carol = of('203.0.113.7', 'globex');
        for (const client of [alice, alice, bob, carol]) expect((await call(app.url, '/', client)).status).toBe(200);
        // A scanner claiming to be of acme hits the honeypot; alice asks for a fresh quota.
        const scanner = of('198.51.100.66', 'acme');
        expect((await call(app.url, '/control/block?ms=3600000', scanner)).status).toBe(200);
        expect((await call(app.url, '/control/reset', alice)).status).toBe(200);
        const refused = await call(app.url, '/', scanner);
        expect([refused.status, refused.json['violated-policies']]).toEqual([429, ['ip']]);
        for (const client of [alice, bob, carol]) expect((await call(app.url, '/', client)).status).toBe(200);
        // The shared counts remember every client's requests: 4, then 3 more (the scanner's was refused).
        const standing = await call(app.url, '/control/peek?cost=0', carol);
        expect(standing.json.results.map((layer: { remaining: number }) => layer.remaining)).toEqual([3, 93, 48]);
        expect((await call(app.url, '/control/unblock', scanner)).status).toBe(200);
        expect((await call(app.url, '/control/peek?cost=0', bob)).json.results[2].remaining).toBe(45);
      });
    });

    it('a shared rule is reset or blocked when the operator names it', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: shared }), TRUSTED)], async (app) => {
        for (let i = 0; i < 3; i++) await call(app.url, '/', of('203.0.113.5', 'acme'));
        expect((await call(app.url, '/control/reset?rule=global', of('192.0.2.1', 'ops'))).status).toBe(200);
        const standing = await call(app.url, '/control/peek?cost=0', of('203.0.113.5', 'acme'));
        expect(standing.json.results.map((layer: { remaining: number }) => layer.remaining)).toEqual([2, 100, 47]);
        expect((await call(app.url, '/control/block?ms=60000&rule=tenant', of('192.0.2.1', 'acme'))).status).toBe(200);
        expect((await call(app.url, '/', of('203.0.113.8', 'acme'))).json['violated-policies']).toEqual(['tenant']);
        expect((await call(app.url, '/', of('203.0.113.8', 'globex'))).status).toBe(200);
      });
    });

    it('a penalty on a shared rule is refused when the middleware is made, with a coded error', async () => {
      const b = backend(storeName);
      const limits = [{ ...(shared[1] as (typeof shared)[1]), blockDuration: '1h' }];
      await expect(framework.start(b.options({ limits }), TRUSTED)).rejects.toMatchObject({
        code: 'ERR_FLOODGATE_INVALID_OPTION',
        message: expect.stringContaining('block every client'),
      });
    });

    it('a selector that is not { rule } (a bare rule name) rejects with a coded error and resets nothing', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: twoRules }), TRUSTED)], async (app) => {
        expect(await statuses(app.url, 3, '/', alice)).toEqual([200, 200, 429]);
        for (const op of ['reset', 'unblock', 'block?ms=60000&']) {
          const rejected = await call(app.url, `/control/${op}${op.endsWith('&') ? '' : '?'}selector=ip`, alice);
          expect(rejected.status, op).toBe(400);
          expect(rejected.json.code, op).toBe('ERR_FLOODGATE_INVALID_OPTION');
        }
        expect((await call(app.url, '/', alice)).status).toBe(429);
        expect((await call(app.url, '/', bob)).status).toBe(200);
      });
    });
  });
});
