import Fastify from 'fastify';
import { floodgate, layered, slidingWindow, tokenBucket } from '@floodgate/fastify';

/**
 * Builds the app. The limiters keep their counts in `store` (a MemoryStore or a RedisStore);
 * `clock` is only for tests (default Date.now).
 *
 * @param {{ store: import('@floodgate/fastify').Store, clock?: () => number }} options
 */
export async function buildApp({ store, clock }) {
  const app = Fastify();

  // Stands in for real authentication: `Authorization: Bearer <user id>` signs the request in.
  // It runs before the limiter (both are onRequest hooks), so the user layer can see the user.
  app.decorateRequest('user', undefined);
  app.addHook('onRequest', async (request) => {
    const match = /^Bearer ([\w-]{1,64})$/.exec(request.headers.authorization ?? '');
    if (match) request.user = { id: match[1] };
  });

  // Layered, for every route: each client IP gets 100 requests per minute; a signed-in user also
  // gets a bucket of 10 that refills 1 per second. A request passes only if every layer allows it.
  await app.register(floodgate, {
    store,
    clock,
    prefix: 'api',
    limits: layered({
      ip: slidingWindow({ limit: 100, window: '1m' }),
      user: { id: (request) => request.user?.id, algorithm: tokenBucket({ capacity: 10, refillRate: 1 }) },
    }),
  });

  // Short form on one route: 5 requests per minute per client IP, counted apart from the rest.
  app.post('/login', { config: { rateLimit: { limit: 5, window: '1m' } } }, async () => ({ ok: true }));
  app.get('/api/items', async (request) => ({
    user: request.user?.id ?? null,
    remaining: request.rateLimit?.remaining,
  }));
  // Not limited at all.
  app.get('/api/health', { config: { rateLimit: false } }, async () => ({ ok: true }));

  return app;
}
