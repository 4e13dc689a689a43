import Fastify from 'fastify';
import { floodgate } from '@floodgate/fastify';
import { prometheusHooks } from '@floodgate/prometheus';
import { Registry } from 'prom-client';
import { bothHooks } from './hooks.js';
import { gatewayLimits } from './limits.js';
import { merchantTable } from './merchants.js';
import { paymentRoutes } from './routes.js';

const BEARER = /^Bearer (\S{1,200})$/;

/**
 * Builds the gateway. Its limits count in `store` (a MemoryStore for one process, a RedisStore
 * shared by every instance).
 *
 * @param {{
 *   store: import('@floodgate/fastify').Store,
 *   merchants?: import('./merchants.js').MerchantTable,
 *   limits?: import('@floodgate/fastify').LimitRule<import('fastify').FastifyRequest>[],
 *   instances?: number,
 *   timeout?: import('@floodgate/fastify').Duration,
 *   clock?: () => number,
 *   hooks?: import('@floodgate/fastify').LimiterEvents<import('fastify').FastifyRequest>,
 * }} options `merchants` defaults to the demo table and `limits` to gatewayLimits(). `instances`
 *   is how many gateways share the store (each takes that share of every limit while the store is
 *   out of reach); `timeout` is the deadline of each store call (default 50 ms); `clock` and
 *   `hooks` are for tests.
 */
export async function buildApp({
  store,
  merchants = merchantTable(),
  limits = gatewayLimits(),
  instances = 1,
  timeout = '50ms',
  clock,
  hooks = {},
}) {
  const app = Fastify();
  const registry = new Registry();

  // Identifies the merchant, and nothing more: rejecting unknown keys here, before the limiter,
  // would let anyone guess keys for free. The 401 comes later (routes.js).
  app.decorateRequest('merchant', undefined);
  app.addHook('onRequest', async (request) => {
    request.merchant = merchants.byApiKey(BEARER.exec(request.headers.authorization ?? '')?.[1]);
  });

  await app.register(floodgate, {
    store,
    clock,
    prefix: 'pay',
    limits,
    instances,
    // Without Redis, decide locally (each instance its share) rather than refuse payments or drop
    // every limit; the first three misses open the breaker, so later requests do not wait at all.
    failMode: 'local',
    timeout,
    breaker: { failureThreshold: 3, failureWindow: '10 s', cooldown: '5 s', probeInterval: '1 s' },
    ...bothHooks(prometheusHooks({ registry }), hooks),
  });

  app.get('/metrics', { config: { rateLimit: false } }, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
  app.get('/v1/rate_limit', app.floodgate.status);
  paymentRoutes(app);
  return app;
}
