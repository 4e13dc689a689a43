import { byApiKey, byIp, fixedWindow } from '@floodgate/core';
import { describe, expect, it } from 'vitest';
import { frameworks, withApps } from './support/controls-apps.ts';
import { backend, storeNames, useRedisBackend } from './support/controls-backend.ts';
import { call, statuses } from './support/controls-routes.ts';
import type { Algorithm } from '@floodgate/core';
import type { Framework } from './support/controls-apps.ts';

/**
 * Per-tenant limits through every adapter, against both stores: a rule's algorithm picked per
 * request from a plan table. A tenant moved to another plan is limited by it at once (counted
 * afresh under it) while the others keep their counts; a function that fails refuses the request,
 * whatever failMode says.
 */

useRedisBackend();

const TIERS: Record<string, Algorithm> = {
  free: fixedWindow({ limit: 3, window: '1m' }),
  team: fixedWindow({ limit: 5, window: '1m' }),
  pro: fixedWindow({ limit: 10, window: '1m' }),
};
const DEFAULT_TIER = fixedWindow({ limit: 2, window: '1m' });
const ALGORITHM_FAILED = 'WARN_FLOODGATE_ALGORITHM_FUNCTION_FAILED';

const as = (apiKey: string) => ({ 'x-api-key': apiKey });

/** The tier of the request's API key in `plans`, else the default tier. */
function tierOf(framework: Framework, plans: Map<string, string>) {
  return (req: unknown): Algorithm => {
    const plan = plans.get(framework.headerOf(req, 'x-api-key') ?? '');
    return plan === undefined ? DEFAULT_TIER : (TIERS[plan] as Algorithm);
  };
}

const tenantRule = (algorithm: unknown) => ({ name: 'tenant', key: byApiKey(), algorithm });

describe.each(storeNames)('%s store', (storeName) => {
  describe.each(frameworks)('$name', (framework) => {
    it("limits each tenant by its plan's algorithm, and an unknown key by the default plan", async () => {
      const b = backend(storeName);
      const plans = new Map([
        ['key-free', 'free'],
        ['key-pro', 'pro'],
      ]);
      const limits = [tenantRule(tierOf(framework, plans))];
      await withApps([framework.start(b.options({ limits }))], async (app) => {
        expect(await statuses(app.url, 4, '/', as('key-free'))).toEqual([200, 200, 200, 429]);
        const pro = await statuses(app.url, 11, '/', as('key-pro'));
        expect(pro.filter((status) => status === 200)).toHaveLength(10);
        expect(pro[10]).toBe(429);
        expect(await statuses(app.url, 3, '/', as('key-stranger'))).toEqual([200, 200, 429]);
        expect((await call(app.url, '/', as('key-pro'))).headers['ratelimit-policy']).toBe('"tenant";q=10;w=60');
        expect((await call(app.url, '/', as('key-stranger'))).headers['ratelimit-policy']).toBe('"tenant";q=2;w=60');
      });
    });

    it('a tenant moved to another plan is limited by it at once; the other tenants keep their counts', async () => {
      const b = backend(storeName);
      const plans = new Map([
        ['key-a', 'free'],
        ['key-b', 'free'],
      ]);
      const limits = [tenantRule(tierOf(framework, plans))];
      await withApps([framework.start(b.options({ limits }))], async (app) => {
        expect(await statuses(app.url, 4, '/', as('key-a'))).toEqual([200, 200, 200, 429]);
        expect(await statuses(app.url, 2, '/', as('key-b'))).toEqual([200, 200]);
        plans.set('key-a', 'pro');
        expect((await call(app.url, '/', as('key-a'))).json).toMatchObject({ allowed: true, limit: 10, remaining: 9 });
        expect(await statuses(app.url, 2, '/', as('key-b'))).toEqual([200, 429]);
        plans.set('key-a', 'team');
        expect(await statuses(app.url, 6, '/', as('key-a'))).toEqual([200, 200, 200, 200, 200, 429]);
        // Back on a plan it already spent in this window: no fresh quota for bouncing between plans.
        plans.set('key-a', 'free');
        expect((await call(app.url, '/', as('key-a'))).status).toBe(429);
      });
    });

    it('an async plan lookup limits as a synchronous one does', async () => {
      const b = backend(storeName);
      const plans = new Map([['key-team', 'team']]);
      const lookup = tierOf(framework, plans);
      const algorithm = async (req: unknown) => {
        await new Promise((resolve) => setImmediate(resolve));
        return lookup(req);
      };
      await withApps([framework.start(b.options({ limits: [tenantRule(algorithm)] }))], async (app) => {
        expect(await statuses(app.url, 6, '/', as('key-team'))).toEqual([200, 200, 200, 200, 200, 429]);
        expect(await statuses(app.url, 3, '/', as('key-other'))).toEqual([200, 200, 429]);
      });
    });

    it('a function that calls the factory on every request counts every request under one key', async () => {
      const b = backend(storeName);
      const algorithm = (req: unknown) =>
        fixedWindow({ limit: framework.headerOf(req, 'x-api-key') === 'key-big' ? 4 : 2, window: '1m' });
      await withApps([framework.start(b.options({ limits: [tenantRule(algorithm)] }))], async (app) => {
        expect(await statuses(app.url, 5, '/', as('key-big'))).toEqual([200, 200, 200, 200, 429]);
        expect(await statuses(app.url, 3, '/', as('key-small'))).toEqual([200, 200, 429]);
      });
    });

    it('the status route of a client whose plan cannot be looked up never answers 5xx', async () => {
      const b = backend(storeName);
      const algorithm = () => {
        throw new Error('plan service down');
      };
      await withApps([framework.start(b.options({ limits: [tenantRule(algorithm)] }))], async (app) => {
        // Behind the limit the middleware refuses first; ahead of it the route must answer on its own.
        const behind = await call(app.url, '/behind/rate_limit', as('key-a'));
        expect(behind.status).toBe(429);
        expect(behind.headers).toEqual({});
        expect((await call(app.url, '/rate_limit', as('key-a'))).status).toBeLessThan(500);
      });
    });

    it.each(['open', 'closed', 'local'])(
      'issue 19.7: a function answering a look-alike ({ decide() {} }) refuses the request (failMode %s), warned once',
      async (failMode) => {
        const b = backend(storeName);
        const lookalikes: Record<string, unknown> = {
          empty: { decide() {} },
          admitting: { decide: () => ({ allowed: true, limit: 2, remaining: 1, resetAt: 0, retryAfter: 0, delay: 0 }) },
          'no-kind': { ...fixedWindow({ limit: 2, window: '1m' }), kind: 'bogus' },
          'no-size': { ...fixedWindow({ limit: 2, window: '1m' }), maxCost: undefined },
        };
        const algorithm = (req: unknown) => lookalikes[framework.headerOf(req, 'x-plan') ?? ''] ?? DEFAULT_TIER;
        const limits = [
          { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 20, window: '1m' }) },
          tenantRule(algorithm),
        ];
        await withApps([framework.start(b.options({ limits, failMode }))], async (app) => {
          for (const plan of Object.keys(lookalikes)) {
            const seen = [];
            for (let i = 0; i < 4; i++) {
              const refused = await call(app.url, '/', { ...as('key-x'), 'x-plan': plan });
              seen.push([refused.status, refused.headers['retry-after']]);
            }
            expect(seen, plan).toEqual(new Array(4).fill([429, undefined]));
          }
          const warned = b.warnings.filter((warning) => warning.code === ALGORITHM_FAILED);
          expect(warned).toHaveLength(1);
          expect(warned[0]?.message).toMatch(/returned an object, which is not an algorithm: its kind is undefined/);
          // Nothing was charged for the refused requests.
          expect((await call(app.url, '/', as('key-x'))).json.results[0]).toMatchObject({ rule: 'ip', remaining: 19 });
        });
      },
    );

    it("issue 19.7: a function that never settles is refused once the limiter's timeout has passed", async () => {
      const b = backend(storeName);
      const algorithm = (req: unknown) =>
        framework.headerOf(req, 'x-plan') === 'stuck' ? new Promise<Algorithm>(() => {}) : DEFAULT_TIER;
      await withApps([framework.start(b.options({ limits: [tenantRule(algorithm)], timeout: 250 }))], async (app) => {
        for (let i = 0; i < 3; i++) {
          const response = await fetch(`${app.url}/`, {
            headers: { ...as('key-stuck'), 'x-plan': 'stuck' },
            signal: AbortSignal.timeout(5_000),
          });
          expect(response.status).toBe(429);
          expect(response.headers.get('retry-after')).toBeNull();
          await response.arrayBuffer();
        }
        const warned = b.warnings.filter((warning) => warning.code === ALGORITHM_FAILED);
        expect(warned.map((warning) => warning.message)).toEqual([
          'the algorithm function of rule "tenant" did not settle within 250 ms (the limiter\'s timeout); such requests are refused',
        ]);
        expect((await call(app.url, '/', as('key-other'))).status).toBe(200);
      });
    });

    it.each(['open', 'closed', 'local'])(
      'a function that throws, rejects or answers no algorithm refuses the request (failMode %s), warned once',
      async (failMode) => {
        const b = backend(storeName);
        // A lookup keyed by what the client sends: prototype names must find nothing usable.
        const byPlanHeader: Record<string, unknown> = { ...TIERS };
        const algorithm = (req: unknown) => {
          const key = framework.headerOf(req, 'x-api-key');
          if (key === 'throws') throw new Error('plan service down');
          if (key === 'rejects') return Promise.reject(new Error('plan service down'));
          if (key === 'hollow') return { limit: 100, window: 60_000 };
          return byPlanHeader[framework.headerOf(req, 'x-plan') ?? 'free'];
        };
        const limits = [
          { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 5, window: '1m' }) },
          tenantRule(algorithm),
        ];
        await withApps([framework.start(b.options({ limits, failMode }))], async (app) => {
          const bad = [
            as('throws'),
            as('rejects'),
            as('hollow'),
            ...['__proto__', 'constructor', 'toString', 'hasOwnProperty'].map((plan) => ({
              ...as('key-x'),
              'x-plan': plan,
            })),
          ];
          for (const headers of [...bad, ...bad]) {
            const refused = await call(app.url, '/', headers);
            expect(refused.status, JSON.stringify(headers)).toBe(429);
            expect(refused.headers, JSON.stringify(headers)).toEqual({});
            expect(refused.json.retryAfter).toBeUndefined();
          }
          expect(b.codes().filter((code) => code === ALGORITHM_FAILED)).toEqual([ALGORITHM_FAILED]);
          // Nothing was charged for the refused requests.
          expect((await call(app.url, '/', as('key-x'))).json.results[0]).toMatchObject({ rule: 'ip', remaining: 4 });
        });
      },
    );
  });
});
