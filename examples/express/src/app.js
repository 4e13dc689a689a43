import express from 'express';
import { layered, rateLimit, slidingWindow, tokenBucket } from '@floodgate/express';

/**
 * Builds the app. Every limiter keeps its counts in `store` (a MemoryStore or a RedisStore), each
 * under its own prefix; `clock` is only for tests (default Date.now).
 *
 * @param {{ store: import('@floodgate/express').Store, clock?: () => number }} options
 */
export function createApp({ store, clock }) {
  const app = express();
  const shared = { store, clock };

  // Short form: 5 requests per minute per client IP on one route.
  app.post('/login', rateLimit({ ...shared, prefix: 'login', limit: 5, window: '1m' }), (_req, res) => {
    res.json({ ok: true });
  });

  // Layered: every client IP gets 100 requests per minute; a signed-in user also gets a bucket of
  // 10 that refills 1 per second. A request passes only if every layer that applies allows it.
  app.use('/api', fakeAuth);
  app.use(
    '/api',
    rateLimit({
      ...shared,
      prefix: 'api',
      limits: layered({
        ip: slidingWindow({ limit: 100, window: '1m' }),
        user: { id: (req) => req.user?.id, algorithm: tokenBucket({ capacity: 10, refillRate: 1 }) },
      }),
      skip: (req) => req.path === '/health',
    }),
  );
  app.get('/api/health', (_req, res) => res.json({ ok: true }));
  app.get('/api/items', (req, res) => {
    res.json({ user: req.user?.id ?? null, remaining: req.rateLimit?.remaining });
  });

  return app;
}

/** Stands in for real authentication: `Authorization: Bearer <user id>` signs the request in. */
function fakeAuth(req, _res, next) {
  const match = /^Bearer ([\w-]{1,64})$/.exec(req.get('authorization') ?? '');
  if (match) req.user = { id: match[1] };
  next();
}
