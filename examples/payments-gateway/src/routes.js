import { randomUUID } from 'node:crypto';

/**
 * The payment routes. `config.processor` marks the routes that call the card processor, and at
 * which priority: captures and refunds are critical, new charges are not.
 *
 * @param {import('fastify').FastifyInstance} app
 */
export function paymentRoutes(app) {
  const charge = { config: { processor: 'normal' }, preHandler: requireMerchant };
  const settle = { config: { processor: 'critical' }, preHandler: requireMerchant };

  app.post('/v1/charges', charge, async (request) => ({
    id: `ch_${randomUUID()}`,
    object: 'charge',
    merchant: request.merchant?.id,
    status: 'authorized',
  }));
  app.post('/v1/charges/:id/capture', settle, async (request) => ({
    id: /** @type {{ id: string }} */ (request.params).id,
    object: 'charge',
    merchant: request.merchant?.id,
    status: 'captured',
  }));
  app.post('/v1/refunds', settle, async (request) => ({
    id: `re_${randomUUID()}`,
    object: 'refund',
    merchant: request.merchant?.id,
    status: 'succeeded',
  }));
  app.get('/v1/balance', { preHandler: requireMerchant }, async (request) => ({
    object: 'balance',
    merchant: request.merchant?.id,
  }));
}

/**
 * A preHandler, so it runs after the limiter (an onRequest hook): a request with a missing or
 * unknown key has already spent its IP's budget when it gets its 401.
 *
 * @param {import('fastify').FastifyRequest} request
 * @param {import('fastify').FastifyReply} reply
 */
async function requireMerchant(request, reply) {
  if (request.merchant !== undefined) return;
  return reply.code(401).send({ error: { type: 'authentication_error', message: 'No valid API key provided.' } });
}
