import { byIp, slidingWindow, tokenBucket } from '@floodgate/fastify';
import { TIERS } from './merchants.js';

/**
 * What the card processor takes from the whole gateway: bursts of 500 calls, 250 per second
 * sustained. A fifth (100) is kept for captures and refunds: they settle money already authorized,
 * and a flood of new charges must not strand it.
 */
export const PROCESSOR_CEILING = tokenBucket({ capacity: 500, refillRate: 250, reserve: 0.2 });

/** Each hot-key lease: 10 units taken in one store call, held at most 500 ms. */
export const PROCESSOR_LEASE = { size: 10, ttl: '500ms' };

const clientIp = byIp();

/**
 * A route's `config.processor`: `'normal'` or `'critical'` on the routes that call the card
 * processor, undefined elsewhere.
 *
 * @param {import('fastify').FastifyRequest} request
 * @returns {'normal' | 'critical' | undefined}
 */
export function processorPriority(request) {
  return /** @type {{ processor?: 'normal' | 'critical' }} */ (request.routeOptions.config).processor;
}

/**
 * The gateway's three layers. A request passes only if every layer that applies to it allows it,
 * and a layer whose key is undefined does not apply:
 * - `merchant`: every request with a known API key, at its merchant's tier;
 * - `ip`: requests without one (anyone can send those, so they are few and the client is blocked
 *   for 10 minutes once it runs out: guessing keys is slow);
 * - `processor`: one global key for the routes that reach the card processor, leased, with the
 *   reserve open to critical routes only. Unauthenticated requests never spend it.
 * The numbers can be swapped (the Redis tests slow the refills down); the shape stays.
 *
 * @param {{
 *   tiers?: Record<string, import('@floodgate/fastify').Algorithm>,
 *   processor?: import('@floodgate/fastify').Algorithm,
 * }} [numbers]
 * @returns {import('@floodgate/fastify').LimitRule<import('fastify').FastifyRequest>[]}
 */
export function gatewayLimits({ tiers = TIERS, processor = PROCESSOR_CEILING } = {}) {
  return [
    {
      name: 'merchant',
      key: (ctx) => ctx.req.merchant?.id,
      // One merchant's own key (set by authentication): the status route shows it to that merchant.
      scope: 'client',
      // Also asked for requests without a merchant (the layer then does not apply, and the answer
      // is unused): any tier will do for them.
      algorithm: (request) => tiers[request.merchant?.tier ?? 'starter'] ?? tiers.starter,
    },
    {
      name: 'ip',
      key: (ctx) => (ctx.req.merchant === undefined ? clientIp(ctx) : undefined),
      // One client's address (a function of ours, so Floodgate cannot tell): its penalty is that client's.
      scope: 'client',
      algorithm: slidingWindow({ limit: 20, window: '1m' }),
      blockDuration: '10m',
    },
    {
      name: 'processor',
      key: (ctx) =>
        ctx.req.merchant !== undefined && processorPriority(ctx.req) !== undefined ? 'card-processor' : undefined,
      algorithm: processor,
      priority: (request) => processorPriority(request) ?? 'normal',
      lease: PROCESSOR_LEASE,
    },
  ];
}
