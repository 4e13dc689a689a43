import { describe, expectTypeOf, it } from 'vitest';
import Fastify from 'fastify';
import { byUser, floodgate, layered, slidingWindow, tokenBucket } from '../src/index';
import type { FloodgateOptions, FloodgateRouteOptions, RateLimitInfo } from '../src/index';
import type { FastifyContextConfig, FastifyRequest } from 'fastify';

describe('@floodgate/fastify types', () => {
  it('adds request.rateLimit and config.rateLimit', () => {
    expectTypeOf<FastifyRequest['rateLimit']>().toEqualTypeOf<RateLimitInfo | undefined>();
    expectTypeOf<FastifyContextConfig['rateLimit']>().toEqualTypeOf<FloodgateRouteOptions | false | undefined>();
  });

  it("hands Fastify's request to the user layer, byUser and the option callbacks", async () => {
    const algorithm = tokenBucket({ capacity: 5, refillRate: 1 });
    const app = Fastify();
    await app.register(floodgate, {
      limits: layered({
        user: {
          id: (request) => {
            expectTypeOf(request).toEqualTypeOf<FastifyRequest>();
            return request.headers['x-user'] as string | undefined;
          },
          algorithm,
        },
      }),
    });
    byUser((request) => {
      expectTypeOf(request).toEqualTypeOf<FastifyRequest>();
      return request.ip;
    });
    expectTypeOf<NonNullable<FloodgateOptions['skip']>>().parameter(0).toEqualTypeOf<FastifyRequest>();
    app.get('/', { config: { rateLimit: { statusCode: 418 } } }, async () => 'ok');
    app.get('/free', { config: { rateLimit: false } }, async () => 'ok');
  });

  it('refuses options that are not options', async () => {
    const app = Fastify();
    // @ts-expect-error: `limt` is not an option
    await app.register(floodgate, { limt: 100, window: '1m' });
    // @ts-expect-error: a window needs a unit
    await app.register(floodgate, { limit: 100, window: '1 minute' });
    await app.register(floodgate, { limits: layered({ ip: slidingWindow({ limit: 100, window: '1m' }) }) });
  });
});
