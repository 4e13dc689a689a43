import { adaptiveConcurrency, byIp, fixedWindow } from '@floodgate/core';
import { describe, expect, it, vi } from 'vitest';
import { drivers, get } from './drivers.ts';
import { T0 } from './suite.ts';
import type { AppSpec, Running } from './drivers.ts';

/**
 * adaptiveConcurrency() through every adapter over real HTTP: a request it sheds gets 503 with
 * Retry-After, the temporary-reduced-capacity problem and RateLimit-Policy counting concurrent
 * requests, and no rate layer is charged for it; the slot is freed when the response finishes,
 * when the client goes away, and when the handler fails.
 */

/** Requests on `/hold` wait here until `open()`; `arrived(n)` resolves once n of them are in the handler. */
function holdGate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let count = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const hold: AppSpec['hold'] = () => {
    count++;
    for (const waiter of waiters) if (count >= waiter.n) waiter.resolve();
    return opened;
  };
  const arrived = (n: number) =>
    new Promise<void>((resolve) => {
      if (count >= n) resolve();
      else waiters.push({ n, resolve });
    });
  return { hold, open, arrived };
}

async function withApp(driver: (typeof drivers)[number], spec: AppSpec, body: (app: Running) => Promise<void>) {
  const app = await driver.start(spec);
  try {
    await body(app);
  } finally {
    await app.close();
  }
}

describe.each(drivers)('$name', (driver) => {
  it('sheds over the limit with 503, Retry-After, the problem type and qu="concurrent-requests"; the rate layer is not charged', async () => {
    const layer = adaptiveConcurrency({ initialLimit: 2, minLimit: 1, maxLimit: 2 });
    const gate = holdGate();
    const limits = [layer, { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 5, window: '1m' }) }];
    // A frozen clock (the default MemoryStore reads it too): the count of charged requests checked
    // below would start again if the wall clock crossed a minute meanwhile.
    await withApp(driver, { options: { limits, clock: () => T0 }, hold: gate.hold }, async (app) => {
      const held = [get(app.url, '/hold'), get(app.url, '/hold')];
      await gate.arrived(2);
      expect(layer.snapshot().inFlight).toBe(2);
      const shed = await get(app.url, '/', { accept: 'application/json' });
      expect(shed.status).toBe(503);
      expect(shed.headers['retry-after']).toBe('1');
      expect(shed.headers['ratelimit-policy']).toBe('"adaptive";q=2;w=1;qu="concurrent-requests"');
      expect(shed.contentType).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(shed.body)).toMatchObject({
        type: 'https://iana.org/assignments/http-problem-types#temporary-reduced-capacity',
        status: 503,
        retryAfter: 1,
      });
      gate.open();
      expect((await Promise.all(held)).map((reply) => reply.status)).toEqual([200, 200]);
      await vi.waitFor(() => expect(layer.snapshot().inFlight).toBe(0));
      // Two held requests and this one were charged; the shed one was not.
      const next = await get(app.url, '/');
      expect(next.status).toBe(200);
      expect(next.headers['x-ratelimit-remaining']).toBe('2');
      expect(layer.snapshot().shed).toEqual({ normal: 1, critical: 0 });
    });
  });

  it('alone in limits: admits under the limit with no rate-limit headers', async () => {
    const layer = adaptiveConcurrency();
    await withApp(driver, { options: { limits: [layer] } }, async (app) => {
      const reply = await get(app.url, '/');
      expect(reply.status).toBe(200);
      expect(reply.headers).toEqual({});
      await vi.waitFor(() => expect(layer.snapshot()).toMatchObject({ inFlight: 0, admitted: 1 }));
    });
  });

  it('frees the slot when the client goes away and when the response is an error', async () => {
    const layer = adaptiveConcurrency({ initialLimit: 1, minLimit: 1, maxLimit: 1 });
    const gate = holdGate();
    await withApp(driver, { options: { limits: [layer] }, hold: gate.hold }, async (app) => {
      const gone = new AbortController();
      const abandoned = fetch(`${app.url}/hold`, { signal: gone.signal }).catch(() => 'aborted');
      await gate.arrived(1);
      expect((await get(app.url, '/')).status).toBe(503);
      gone.abort();
      expect(await abandoned).toBe('aborted');
      await vi.waitFor(() => expect(layer.snapshot().inFlight).toBe(0));
      gate.open();
      expect((await get(app.url, '/status/500')).status).toBe(500);
      await vi.waitFor(() => expect(layer.snapshot().inFlight).toBe(0));
      expect((await get(app.url, '/')).status).toBe(200);
    });
  });

  it('a critical route uses the reserve that normal requests may not', async () => {
    const layer = adaptiveConcurrency({ initialLimit: 4, minLimit: 1, maxLimit: 4, reserve: 0.5 });
    const gate = holdGate();
    const critical = (req: unknown) => (driver.headerOf(req, 'x-ops') === 'yes' ? 'critical' : 'normal') as 'critical';
    await withApp(driver, { options: { limits: [layer], priority: critical }, hold: gate.hold }, async (app) => {
      const held = [get(app.url, '/hold'), get(app.url, '/hold')];
      await gate.arrived(2);
      expect((await get(app.url, '/')).status).toBe(503);
      const ops = get(app.url, '/hold', { 'x-ops': 'yes' });
      await gate.arrived(3);
      expect(layer.snapshot()).toMatchObject({ inFlight: 3, shed: { normal: 1, critical: 0 } });
      gate.open();
      await Promise.all([...held, ops]);
    });
  });
  it('a priority function that throws makes the request normal (the reserve stays shut), warned once', async () => {
    const layer = adaptiveConcurrency({ initialLimit: 4, minLimit: 1, maxLimit: 4, reserve: 0.5 });
    const gate = holdGate();
    const warnings: string[] = [];
    const onWarning = (warning: { code: string; message: string }) => {
      warnings.push(`${warning.code}: ${warning.message}`);
    };
    const priority = (req: unknown) => {
      if (driver.headerOf(req, 'x-ops') === 'yes') throw new Error('cannot read the roster');
      return 'critical' as const;
    };
    await withApp(driver, { options: { limits: [layer], priority, onWarning }, hold: gate.hold }, async (app) => {
      const held = [get(app.url, '/hold'), get(app.url, '/hold')];
      await gate.arrived(2);
      expect((await get(app.url, '/', { 'x-ops': 'yes' })).status).toBe(503);
      expect((await get(app.url, '/', { 'x-ops': 'yes' })).status).toBe(503);
      expect(layer.snapshot()).toMatchObject({ inFlight: 2, shed: { normal: 2, critical: 0 } });
      expect(warnings).toEqual([
        'WARN_FLOODGATE_PRIORITY_FAILED: the priority function threw cannot read the roster; such requests are normal (they cannot use the reserve)',
      ]);
      gate.open();
      await Promise.all(held);
    });
  });
});
