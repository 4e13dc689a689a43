import { Hono } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { layered, rateLimiter, slidingWindow, tokenBucket } from '@floodgate/hono';

/**
 * Builds the app. The limiters keep their counts in `store` (a MemoryStore or a RedisStore);
 * `clock` is only for tests (default Date.now). On another runtime, pass its own getConnInfo.
 *
 * @param {{ store: import('@floodgate/hono').Store, clock?: () => number }} options
 */
export function createApp({ store, clock }) {
  const app = new Hono();
  const shared = { store, clock, getConnInfo };

  // Short form: 5 requests per minute per client IP on one route.
  app.post('/login', rateLimiter({ ...shared, prefix: 'login', limit: 5, window: '1m' }), (c) => c.json({ ok: true }));

  // Layered: each client IP gets 100 requests per minute; a signed-in user also gets a bucket of
  // 10 that refills 1 per second. A request passes only if every layer that applies allows it.
  app.use('/api/*', fakeAuth);
  app.use(
    '/api/*',
    rateLimiter({
      ...shared,
      prefix: 'api',
      limits: layered({
        ip: slidingWindow({ limit: 100, window: '1m' }),
        user: { id: (c) => c.get('user')?.id, algorithm: tokenBucket({ capacity: 10, refillRate: 1 }) },
      }),
      skip: (c) => c.req.path === '/api/health',
    }),
  );
  app.get('/api/health', (c) => c.json({ ok: true }));
  app.get('/api/items', (c) => c.json({ user: c.get('user')?.id ?? null, remaining: c.get('rateLimit')?.remaining }));

  return app;
}

/** Stands in for real authentication: `Authorization: Bearer <user id>` signs the request in. */
async function fakeAuth(c, next) {
  const match = /^Bearer ([\w-]{1,64})$/.exec(c.req.header('authorization') ?? '');
  if (match) c.set('user', { id: match[1] });
  await next();
}
