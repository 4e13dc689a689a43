import { describe, expect, it } from 'vitest';
import request from 'supertest';
import express5 from 'express';
import { MemoryStore } from '@floodgate/core';
import { rateLimit } from '../src/index';
import express4 from 'express4';
const T0 = Date.UTC(2026, 0, 1);

describe.each([
  ['express 5', express5],
  ['express 4', express4],
] as const)('%s', (_name, express) => {
  it('limits, sets headers on every response, and exposes req.rateLimit', async () => {
    const app = express();
    app.use(rateLimit({ limit: 1, window: '1m', clock: () => T0 }));
    app.get('/', (req, res) => res.json({ remaining: req.rateLimit?.remaining, rule: req.rateLimit?.rule }));
    const allowed = await request(app).get('/');
    expect(allowed.status).toBe(200);
    expect(allowed.body).toEqual({ remaining: 0, rule: 'ip' });
    expect(allowed.headers.ratelimit).toBe('"ip";r=0;t=120');
    const denied = await request(app).get('/').set('accept', 'application/json');
    expect(denied.status).toBe(429);
    expect(denied.headers['retry-after']).toBe('120');
    expect(denied.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('counts a request once when the same instance is mounted on the app and on a router, and warns once', async () => {
    const warnings: string[] = [];
    const limiter = rateLimit({ limit: 2, window: '1m', clock: () => T0, onWarning: (w) => warnings.push(w.code) });
    const app = express();
    const router = express.Router();
    app.use(limiter);
    router.use(limiter);
    router.get('/x', (req, res) => res.json({ remaining: req.rateLimit?.remaining }));
    app.use('/r', router);
    expect((await request(app).get('/r/x')).body).toEqual({ remaining: 1 });
    expect((await request(app).get('/r/x')).body).toEqual({ remaining: 0 });
    expect((await request(app).get('/r/x')).status).toBe(429);
    expect(warnings).toEqual(['WARN_FLOODGATE_DOUBLE_COUNT']);
  });

  it('runs per router and per route; message and handler replace the default body', async () => {
    const app = express();
    const router = express.Router();
    router.use(rateLimit({ limit: 1, window: '1m', message: 'slow down', statusCode: 420 as number }));
    router.get('/a', (_req, res) => res.send('a'));
    app.use('/r', router);
    app.get(
      '/h',
      rateLimit({
        limit: 1,
        window: '1m',
        handler: (_req, res, _next, decision) => res.status(429).send(`wait ${decision.retryAfter}`),
      }),
      (_req, res) => res.send('h'),
    );
    app.get('/free', (_req, res) => res.send('free'));
    expect((await request(app).get('/r/a')).status).toBe(200);
    const custom = await request(app).get('/r/a');
    expect([custom.status, custom.text]).toEqual([420, 'slow down']);
    expect((await request(app).get('/h')).text).toBe('h');
    const handled = await request(app).get('/h');
    expect(handled.status).toBe(429);
    expect(handled.text).toMatch(/^wait \d+$/);
    expect(handled.headers['retry-after']).toBeDefined();
    expect((await request(app).get('/free')).headers.ratelimit).toBeUndefined();
  });
});

describe('rateLimit options', () => {
  it('returns a named async handler', () => {
    const handler = rateLimit({ limit: 1, window: '1s' });
    expect(handler.name).toBe('rateLimit');
    expect(handler.length).toBe(3);
  });

  it('rejects bad options at construction, naming the option and the value', () => {
    expect(() => rateLimit({ limit: 0, window: '1m' })).toThrow('rateLimit.limit must be an integer >= 1, got 0');
    expect(() => rateLimit({ limit: 5, window: 'soon' as never })).toThrow(/rateLimit.window.*"soon"/);
    expect(() => rateLimit({ limit: 1, window: '1m', standardHeaders: 'draft-9' as 'draft-8' })).toThrow(
      /standardHeaders.*"draft-9"/,
    );
    expect(() => rateLimit({ limit: 1, window: '1m', legacyHeaders: 'yes' as unknown as boolean })).toThrow(
      /legacyHeaders.*"yes"/,
    );
    expect(() => rateLimit({ limit: 1, window: '1m', statusCode: 200 })).toThrow(/statusCode.*200/);
    expect(() => rateLimit({ limit: 1, window: '1m', allowList: ['10.0.0.0/33'] })).toThrow(
      /allowList\[0\].*"10.0.0.0\/33"/,
    );
    expect(() => rateLimit({ limit: 1 })).toThrow(/needs both limit and window/);
    expect(() => rateLimit({ limit: 1, window: '1m', limits: [] })).toThrow(/not both/);
    expect(() => rateLimit({ limit: 1, window: '1m', colour: 'red' } as never)).toThrow(/unknown option "colour"/);
    expect(() => rateLimit({ limit: 1, window: '1m', maxDelay: '1 fortnight' as never })).toThrow(/maxDelay/);
  });

  it('does not mutate the options it is given', () => {
    const options = Object.freeze({ limit: 1, window: '1m' as const, store: new MemoryStore() });
    expect(() => rateLimit(options)).not.toThrow();
    expect(Object.keys(options)).toEqual(['limit', 'window', 'store']);
  });
});
