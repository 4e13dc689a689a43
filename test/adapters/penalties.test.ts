import { byIp, fixedWindow } from '@floodgate/core';
import { describe, expect, it } from 'vitest';
import { frameworks, withApps } from './support/controls-apps.ts';
import { backend, storeNames, T0, T0s, useRedisBackend } from './support/controls-backend.ts';
import { call, statuses } from './support/controls-routes.ts';
import type { Answer } from './support/controls-routes.ts';
import type { StoreCallEvent } from '@floodgate/core';

/**
 * Penalties through every adapter, against both stores, on an injected clock: once a rule denies a
 * client it stays denied for blockDuration (doubling per repeat within escalate.period, up to max),
 * on every instance sharing the store, and nothing the client does meanwhile makes it longer.
 */

useRedisBackend();

/** 2 a minute; a client that asks for a third is shut out for 5 minutes. */
const login = (extra: Record<string, unknown> = {}) => [
  { name: 'login', key: byIp(), algorithm: fixedWindow({ limit: 2, window: '1m' }), blockDuration: '5m', ...extra },
];
const escalating = login({ escalate: { period: '1h', max: '20m' } });

const retryAfter = (answer: Answer) => answer.headers['retry-after'];

/** Two admitted requests and the refused third; the third's Retry-After. */
async function offend(url: string, headers: Record<string, string> = {}): Promise<string | undefined> {
  expect(await statuses(url, 2, '/', headers)).toEqual([200, 200]);
  const refused = await call(url, '/', headers);
  expect(refused.status).toBe(429);
  return retryAfter(refused);
}

describe.each(storeNames)('%s store', (storeName) => {
  describe.each(frameworks)('$name', (framework) => {
    it("keeps the client out for blockDuration, past the window's end; Retry-After and the fields say so", async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: login() }))], async (app) => {
        expect(await statuses(app.url, 2)).toEqual([200, 200]);
        const refused = await call(app.url);
        expect(refused.headers).toMatchObject({
          'retry-after': '300',
          ratelimit: '"login";r=0;t=300',
          'x-ratelimit-reset': String(T0s + 300),
        });
        b.now = T0 + 60_000;
        expect(retryAfter(await call(app.url))).toBe('240');
        b.now = T0 + 299_999;
        expect(retryAfter(await call(app.url))).toBe('1');
        b.now = T0 + 300_000;
        expect((await call(app.url)).json).toMatchObject({ allowed: true, remaining: 1 });
      });
    });

    it('requests during a block, even all at once, neither extend it nor count as another offence', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: escalating }))], async (app) => {
        expect(await statuses(app.url, 2)).toEqual([200, 200]);
        const burst = await Promise.all(Array.from({ length: 10 }, () => call(app.url)));
        expect(burst.map(retryAfter)).toEqual(Array(10).fill('300'));
        b.now = T0 + 100_000;
        for (let i = 0; i < 20; i++) expect(retryAfter(await call(app.url))).toBe('200');
        b.now = T0 + 300_000;
        expect(await offend(app.url)).toBe('600');
        b.now = T0 + 900_000;
        expect(await offend(app.url)).toBe('1200');
        b.now = T0 + 2_100_000;
        expect(await offend(app.url)).toBe('1200');
      });
    });

    it('a client that waits exactly Retry-After is admitted, also when the window outlasts the block', async () => {
      const b = backend(storeName);
      const limits = [
        { name: 'login', key: byIp(), algorithm: fixedWindow({ limit: 2, window: '1h' }), blockDuration: '5m' },
      ];
      await withApps([framework.start(b.options({ limits }))], async (app) => {
        const wait = Number(await offend(app.url));
        expect.soft(wait).toBe(3600);
        b.now = T0 + wait * 1000;
        expect((await call(app.url)).status).toBe(200);
      });
    });

    it('the block is shared by every instance on the store, and so is the escalation', async () => {
      const b = backend(storeName);
      const starts = [0, 1].map(() => framework.start(b.options({ limits: escalating })));
      await withApps(starts, async (one, two) => {
        expect(await offend(one.url)).toBe('300');
        expect(retryAfter(await call(two.url))).toBe('300');
        b.now = T0 + 100_000;
        expect(retryAfter(await call(two.url))).toBe('200');
        b.now = T0 + 300_000;
        expect(await offend(two.url)).toBe('600');
        expect(retryAfter(await call(one.url))).toBe('600');
      });
    });

    it('what the client controls does not get it past a block: a spoofed address, a cost of 0, peeking', async () => {
      const b = backend(storeName);
      const cost = (req: unknown) => Number(framework.headerOf(req, 'x-cost') ?? 1);
      await withApps([framework.start(b.options({ limits: login(), cost }))], async (app) => {
        // A cost no window can take is refused outright: not an offence either.
        expect((await call(app.url, '/', { 'x-cost': '3' })).headers).toEqual({});
        expect(await statuses(app.url, 2)).toEqual([200, 200]);
        for (let i = 0; i < 3; i++) expect((await call(app.url, '/control/peek')).json.allowed).toBe(false);
        expect((await call(app.url, '/', { 'x-cost': '0' })).status).toBe(429);
        // Neither peeking at a third request nor a free one was an offence: the next window opens.
        b.now = T0 + 60_000;
        expect(await offend(app.url)).toBe('300');
        expect((await call(app.url, '/', { 'x-forwarded-for': '198.51.100.9' })).status).toBe(429);
        expect((await call(app.url, '/', { 'x-cost': '0' })).status).toBe(429);
        expect((await call(app.url, '/control/peek?cost=0')).json.allowed).toBe(false);
      });
    });

    it('unblock and reset lift the block and forget the offences', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: escalating }))], async (app) => {
        expect(await offend(app.url)).toBe('300');
        b.now = T0 + 60_000;
        expect((await call(app.url)).status).toBe(429);
        expect((await call(app.url, '/control/unblock')).status).toBe(200);
        // Lifted, and the first offence forgotten: a block of 300 s again, not 600.
        expect(await offend(app.url)).toBe('300');
        expect((await call(app.url, '/control/reset')).status).toBe(200);
        expect(await offend(app.url)).toBe('300');
      });
    });

    it('unblock lets a penalised client in at once: its next request in the same window is admitted, not penalised again', async () => {
      const b = backend(storeName);
      await withApps([framework.start(b.options({ limits: escalating }))], async (app) => {
        expect(await offend(app.url)).toBe('300');
        b.now = T0 + 10_000;
        expect((await call(app.url, '/control/unblock')).status).toBe(200);
        // The quota the penalty was given for is spent: unblock starts it afresh.
        expect((await call(app.url)).json).toMatchObject({ allowed: true, remaining: 1 });
        expect((await call(app.url)).status).toBe(200);
        // A new offence, counted as the first again.
        expect(retryAfter(await call(app.url))).toBe('300');
      });
    });

    it('a penalty given while the reserve has room holds normal requests only: critical ones still use the reserve', async () => {
      const b = backend(storeName);
      const priority = (req: unknown) => (framework.headerOf(req, 'x-priority') === 'critical' ? 'critical' : 'normal');
      const limits = [
        {
          name: 'charges',
          key: byIp(),
          algorithm: fixedWindow({ limit: 5, window: '1m', reserve: 2 }),
          blockDuration: '5m',
        },
      ];
      const critical = { 'x-priority': 'critical' };
      await withApps([framework.start(b.options({ limits, priority }))], async (app) => {
        expect(await statuses(app.url, 4)).toEqual([200, 200, 200, 429]);
        expect(retryAfter(await call(app.url))).toBe('300');
        for (let remaining = 1; remaining >= 0; remaining--) {
          expect((await call(app.url, '/', critical)).json).toMatchObject({ allowed: true, limit: 5, remaining });
        }
        // The reserve is spent too: a critical request's denial blocks every request.
        const spent = await call(app.url, '/', critical);
        expect([spent.status, retryAfter(spent)]).toEqual([429, '300']);
        b.now = T0 + 100_000;
        expect(retryAfter(await call(app.url, '/', critical))).toBe('200');
        expect(retryAfter(await call(app.url))).toBe('200');
      });
    });

    it('a shadow rule with blockDuration never blocks', async () => {
      const b = backend(storeName);
      const limits = [
        { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 100, window: '1m' }) },
        ...login({ shadow: true }),
      ];
      await withApps([framework.start(b.options({ limits }))], async (app) => {
        expect(await statuses(app.url, 5)).toEqual([200, 200, 200, 200, 200]);
        b.now = T0 + 60_000;
        const fresh = await call(app.url);
        expect(fresh.json.results[1]).toMatchObject({ rule: 'login', allowed: true, remaining: 1 });
      });
    });
  });
});

describe('redis store: the deny cache', () => {
  describe.each(frameworks)('$name', (framework) => {
    it('answers a blocked client on this instance without a store call, until the block ends', async () => {
      const b = backend('redis');
      const consumes: StoreCallEvent[] = [];
      const onStoreCall = (event: StoreCallEvent) => {
        if (event.operation === 'consume') consumes.push(event);
      };
      await withApps([framework.start(b.options({ limits: login(), onStoreCall }))], async (app) => {
        expect(await offend(app.url)).toBe('300');
        const asked = consumes.length;
        b.now = T0 + 120_000;
        for (let i = 0; i < 20; i++) expect(retryAfter(await call(app.url))).toBe('180');
        expect(consumes.length).toBe(asked);
        b.now = T0 + 300_000;
        expect((await call(app.url)).status).toBe(200);
        expect(consumes.length).toBe(asked + 1);
      });
    });
  });
});

describe('memory store: the escalation period', () => {
  describe.each(frameworks)('$name', (framework) => {
    it('an offence more than escalate.period after the last block starts again at blockDuration', async () => {
      const b = backend('memory');
      await withApps([framework.start(b.options({ limits: escalating }))], async (app) => {
        expect(await offend(app.url)).toBe('300');
        b.now = T0 + 300_000;
        expect(await offend(app.url)).toBe('600');
        // The last penalty was at T0 + 300 s; an hour later its count is forgotten.
        b.now = T0 + 300_000 + 3_600_001;
        expect(await offend(app.url)).toBe('300');
      });
    });
  });
});
