import Koa from 'koa';
import { layered, rateLimit, slidingWindow, tokenBucket } from '@floodgate/koa';

/**
 * Builds the app. Every limiter keeps its counts in `store` (a MemoryStore or a RedisStore), each
 * under its own prefix; `clock` is only for tests (default Date.now).
 *
 * @param {{ store: import('@floodgate/koa').Store, clock?: () => number }} options
 */
export function createApp({ store, clock }) {
  const app = new Koa();
  const shared = { store, clock };

  // Short form: 5 requests per minute per client IP on one route.
  const login = rateLimit({ ...shared, prefix: 'login', limit: 5, window: '1m' });
  // Layered: every client IP gets 100 requests per minute; a signed-in user also gets a bucket of
  // 10 that refills 1 per second. A request passes only if every layer that applies allows it.
  const api = rateLimit({
    ...shared,
    prefix: 'api',
    limits: layered({
      ip: slidingWindow({ limit: 100, window: '1m' }),
      user: { id: (ctx) => ctx.state.user?.id, algorithm: tokenBucket({ capacity: 10, refillRate: 1 }) },
    }),
    skip: (ctx) => ctx.path === '/api/health',
  });

  app.use(fakeAuth);
  app.use((ctx, next) => {
    if (ctx.method === 'POST' && ctx.path === '/login') return login(ctx, next);
    if (ctx.path.startsWith('/api/')) return api(ctx, next);
    return next();
  });
  app.use((ctx) => {
    if (ctx.method === 'POST' && ctx.path === '/login') ctx.body = { ok: true };
    else if (ctx.method === 'GET' && ctx.path === '/api/health') ctx.body = { ok: true };
    else if (ctx.method === 'GET' && ctx.path === '/api/items') {
      // The decision is on ctx.state.rateLimit, where koa2-ratelimit puts it.
      ctx.body = { user: ctx.state.user?.id ?? null, remaining: ctx.state.rateLimit?.remaining };
    }
  });
  return app;
}

/** Stands in for real authentication: `Authorization: Bearer <user id>` signs the request in. */
function fakeAuth(ctx, next) {
  const match = /^Bearer ([\w-]{1,64})$/.exec(ctx.get('authorization'));
  if (match) ctx.state.user = { id: match[1] };
  return next();
}
