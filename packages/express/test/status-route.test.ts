import { describe, expect, it } from 'vitest';
import request from 'supertest';
import express5 from 'express';
import { rateLimit, rateLimitStatus } from '../src/index';
import express4 from 'express4';

const T0 = Date.UTC(2026, 0, 1);

/** One request a minute, then 429; the warnings kept. */
function limited() {
  const warnings: string[] = [];
  const limiter = rateLimit({ limit: 1, window: '1m', clock: () => T0, onWarning: (w) => warnings.push(w.code) });
  return { limiter, warnings };
}

// How the middleware finds its status route in Express' routing table, wherever it is registered
// (test/adapters/status-route.test.ts runs the behaviour through every adapter and store).
describe.each([
  ['express 5', express5],
  ['express 4', express4],
] as const)('%s: the status route behind the middleware', (_name, express) => {
  it('answers a limited client where the middleware is mounted on a path, in a router, and for HEAD', async () => {
    const { limiter, warnings } = limited();
    const app = express();
    const router = express.Router();
    app.use('/api', limiter);
    app.get('/api/rate_limit', rateLimitStatus(limiter));
    router.get('/rate_limit', rateLimitStatus(limiter));
    app.use('/api/v2', router);
    app.get('/api/x', (_req, res) => res.send('x'));
    expect((await request(app).get('/api/x')).status).toBe(200);
    expect((await request(app).get('/api/x')).status).toBe(429);
    for (const path of ['/api/rate_limit', '/api/v2/rate_limit', '/api/rate_limit?x=1', '/API/Rate_Limit']) {
      const status = await request(app).get(path);
      expect([path, status.status]).toEqual([path, 200]);
      expect(status.body.resources.ip).toMatchObject({ remaining: 0, used: 1 });
    }
    expect((await request(app).head('/api/rate_limit')).status).toBe(200);
    expect(warnings).toEqual([]);
  });

  it('is not the status route for another method, another path, or another middleware', async () => {
    const { limiter } = limited();
    const other = rateLimit({ limit: 5, window: '1m', clock: () => T0, prefix: 'other' });
    const app = express();
    app.use(limiter);
    app.get('/rate_limit', rateLimitStatus(limiter));
    app.get('/theirs', rateLimitStatus(other));
    app.post('/rate_limit', (_req, res) => res.send('posted'));
    app.get('/rate_limit/more', (_req, res) => res.send('more'));
    expect((await request(app).get('/rate_limit')).status).toBe(200);
    expect((await request(app).post('/rate_limit')).status).toBe(200);
    for (const [method, path] of [
      ['post', '/rate_limit'],
      ['get', '/rate_limit/more'],
      ['get', '/theirs'],
    ] as const) {
      expect([method, path, (await request(app)[method](path)).status]).toEqual([method, path, 429]);
    }
    expect((await request(app).get('/rate_limit')).status).toBe(200);
  });

  it('in a sub-app it cannot be found: the unit is given back, a limited client gets 429, and the middleware warns', async () => {
    const { limiter, warnings } = limited();
    const app = express();
    const sub = express();
    sub.use(limiter);
    sub.get('/rate_limit', rateLimitStatus(limiter));
    app.use('/sub', sub);
    expect((await request(app).get('/sub/rate_limit')).status).toBe(200);
    expect((await request(app).get('/sub/rate_limit')).status).toBe(200);
    expect(warnings).toEqual(['WARN_FLOODGATE_STATUS_BEHIND']);
    sub.get('/x', (_req, res) => res.send('x'));
    expect((await request(app).get('/sub/x')).status).toBe(200);
    expect((await request(app).get('/sub/rate_limit')).status).toBe(429);
  });
});
