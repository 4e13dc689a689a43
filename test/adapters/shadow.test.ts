import { byIp, fixedWindow } from '@floodgate/core';
import { describe, expect, it } from 'vitest';
import { frameworks, withApps } from './support/controls-apps.ts';
import { backend, storeNames, T0s, useRedisBackend } from './support/controls-backend.ts';
import { call, statuses } from './support/controls-routes.ts';
import type { DecisionEvent } from '@floodgate/core';
import type { Framework } from './support/controls-apps.ts';

/**
 * Shadow mode through every adapter, against both stores: a shadow layer is decided and charged
 * as usual, its denial lets the request through (reported to onLimited with shadowDenied), and it
 * never shows in the response; an enforced layer beside it limits as before.
 */

useRedisBackend();

interface Seen {
  allowed: boolean;
  shadowDenied: boolean;
  rule: string | undefined;
}

/** onLimited and onDecision, recorded. */
function hooks() {
  const limited: Seen[] = [];
  let decisions = 0;
  const seen = ({ decision }: DecisionEvent) => ({
    allowed: decision.allowed,
    shadowDenied: decision.shadowDenied,
    rule: decision.rule,
  });
  return {
    limited,
    decisions: () => decisions,
    options: {
      onLimited: (event: DecisionEvent) => limited.push(seen(event)),
      onDecision: () => decisions++,
    },
  };
}

const legacy = (remaining: number, limit: number) => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(T0s + 60),
});

/** 100 a minute enforced, beside a shadow rule of 2 being tried out. */
const enforcedAndTrial = [
  { name: 'enforced', key: byIp(), algorithm: fixedWindow({ limit: 100, window: '1m' }) },
  { name: 'trial', key: byIp(), algorithm: fixedWindow({ limit: 2, window: '1m' }), shadow: true },
];

/** The request's cost: the `x-cost` header, else 1. */
const costOf = (framework: Framework) => (req: unknown) => Number(framework.headerOf(req, 'x-cost') ?? 1);

describe.each(storeNames)('%s store', (storeName) => {
  describe.each(frameworks)('$name', (framework) => {
    it('a shadow rule: no 429, no field of its own, onLimited told, and its count still kept', async () => {
      const b = backend(storeName);
      const events = hooks();
      const limits = [
        { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 10, window: '1m' }) },
        { name: 'trial', key: byIp(), algorithm: fixedWindow({ limit: 2, window: '1m' }), shadow: true },
      ];
      await withApps([framework.start(b.options({ limits, ...events.options }))], async (app) => {
        for (let i = 1; i <= 4; i++) {
          const answer = await call(app.url);
          expect(answer.status).toBe(200);
          expect(answer.headers).toEqual({
            ratelimit: `"ip";r=${10 - i};t=60`,
            'ratelimit-policy': '"ip";q=10;w=60',
            ...legacy(10 - i, 10),
          });
          expect(answer.json).toMatchObject({ allowed: true, shadowDenied: i > 2, rule: 'ip', retryAfter: 0 });
          expect(answer.json.results).toEqual([
            { rule: 'ip', allowed: true, remaining: 10 - i, limit: 10, shadow: false },
            { rule: 'trial', allowed: i <= 2, remaining: Math.max(0, 2 - i), limit: 2, shadow: true },
          ]);
        }
        expect(events.decisions()).toBe(4);
        expect(events.limited).toEqual([
          { allowed: true, shadowDenied: true, rule: 'ip' },
          { allowed: true, shadowDenied: true, rule: 'ip' },
        ]);
        // Charged where it allowed (2 of 2), not where it denied.
        expect((await call(app.url, '/control/peek?cost=0')).json.results).toEqual([
          { rule: 'ip', allowed: true, remaining: 6, limit: 10, shadow: false },
          { rule: 'trial', allowed: true, remaining: 0, limit: 2, shadow: true },
        ]);
      });
    });

    it('a shadow middleware: every request passes without a rate-limit field, and is counted', async () => {
      const b = backend(storeName);
      const events = hooks();
      const options = b.options({ limit: 2, window: '1m', shadow: true, ...events.options });
      await withApps([framework.start(options)], async (app) => {
        for (let i = 1; i <= 4; i++) {
          const answer = await call(app.url);
          expect(answer.status).toBe(200);
          expect(answer.headers).toEqual({});
          expect(answer.json).toMatchObject({ allowed: true, shadowDenied: i > 2 });
        }
        expect(events.limited).toEqual([
          { allowed: true, shadowDenied: true, rule: undefined },
          { allowed: true, shadowDenied: true, rule: undefined },
        ]);
        expect((await call(app.url, '/control/peek')).json).toMatchObject({
          allowed: true,
          shadowDenied: true,
          results: [{ rule: 'ip', allowed: false, remaining: 0, limit: 2, shadow: true }],
        });
      });
    });

    it('beside an enforced rule: the enforced one alone sets the fields and still refuses', async () => {
      const b = backend(storeName);
      const events = hooks();
      const limits = [
        { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 4, window: '1m' }) },
        { name: 'trial', key: byIp(), algorithm: fixedWindow({ limit: 1, window: '1m' }), shadow: true },
      ];
      await withApps([framework.start(b.options({ limits, ...events.options }))], async (app) => {
        // The shadow rule denies from the second request on; that must not stop (or stop counting) the rest.
        expect(await statuses(app.url, 4)).toEqual([200, 200, 200, 200]);
        const refused = await call(app.url);
        expect(refused.status).toBe(429);
        expect(refused.headers).toEqual({
          ratelimit: '"ip";r=0;t=60',
          'ratelimit-policy': '"ip";q=4;w=60',
          ...legacy(0, 4),
          'retry-after': '60',
        });
        expect(events.limited.map((event) => event.allowed)).toEqual([true, true, true, false]);
      });
    });

    it('the 429 body names only the enforced rules that refused, never a shadow rule', async () => {
      const b = backend(storeName);
      const limits = [
        { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 1, window: '1m' }) },
        { name: 'trial', key: byIp(), algorithm: fixedWindow({ limit: 1, window: '1m' }), shadow: true },
      ];
      await withApps([framework.start(b.options({ limits }))], async (app) => {
        expect((await call(app.url)).status).toBe(200);
        const refused = await call(app.url);
        expect(refused.status).toBe(429);
        expect(refused.json['violated-policies']).toEqual(['ip']);
      });
    });

    it("issue 19.2: a cost above a shadow rule's capacity passes, reported as that rule's denial, and charges it nothing", async () => {
      const b = backend(storeName);
      const events = hooks();
      const cost = costOf(framework);
      await withApps(
        [framework.start(b.options({ limits: enforcedAndTrial, cost, ...events.options }))],
        async (app) => {
          const dear = await call(app.url, '/', { 'x-cost': '3' });
          expect(dear.status).toBe(200);
          expect(dear.headers.ratelimit).toBe('"enforced";r=97;t=60');
          expect(dear.json).toMatchObject({ allowed: true, shadowDenied: true, rule: 'enforced' });
          expect(dear.json.results).toEqual([
            { rule: 'enforced', allowed: true, remaining: 97, limit: 100, shadow: false },
            { rule: 'trial', allowed: false, remaining: 2, limit: 2, shadow: true },
          ]);
          expect(events.limited).toEqual([{ allowed: true, shadowDenied: true, rule: 'enforced' }]);
          expect(b.codes()).toEqual([]);
          // The shadow rule still has its two units: the cost it could never admit charged it nothing.
          expect((await call(app.url, '/control/peek?cost=0')).json.results[1]).toMatchObject({ remaining: 2 });
        },
      );
    });

    it('issue 19.2: requests of cost 0 pass once a shadow rule is used up', async () => {
      const b = backend(storeName);
      const cost = costOf(framework);
      await withApps([framework.start(b.options({ limits: enforcedAndTrial, cost }))], async (app) => {
        expect(await statuses(app.url, 3)).toEqual([200, 200, 200]);
        for (let i = 0; i < 3; i++) {
          const free = await call(app.url, '/', { 'x-cost': '0' });
          expect(free.status).toBe(200);
          expect(free.headers.ratelimit).toBe('"enforced";r=97;t=60');
          expect(free.json.results[1]).toEqual({ rule: 'trial', allowed: true, remaining: 0, limit: 2, shadow: true });
        }
      });
    });

    it("a rule's own shadow: false is enforced under a shadow middleware", async () => {
      const b = backend(storeName);
      const limits = [
        { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 2, window: '1m' }), shadow: false },
        { name: 'trial', key: byIp(), algorithm: fixedWindow({ limit: 1, window: '1m' }) },
      ];
      await withApps([framework.start(b.options({ limits, shadow: true }))], async (app) => {
        expect(await statuses(app.url, 3)).toEqual([200, 200, 429]);
        expect((await call(app.url)).headers['ratelimit-policy']).toBe('"ip";q=2;w=60');
      });
    });
  });
});
