import { describe, expectTypeOf, it } from 'vitest';
import { Hono } from 'hono';
import { byUser, layered, rateLimiter, rateLimitStatus, slidingWindow, tokenBucket } from '../src/index';
import type { RateLimitInfo, RateLimiterOptions } from '../src/index';
import type { Context, Handler, MiddlewareHandler } from 'hono';

describe('@floodgate/hono types', () => {
  it("adds c.get('rateLimit'): the decision, or undefined when skipped", () => {
    const app = new Hono();
    app.get('/', (c) => {
      expectTypeOf(c.get('rateLimit')).toEqualTypeOf<RateLimitInfo | undefined>();
      return c.text('ok');
    });
  });

  it('returns a Hono middleware that carries its controls', () => {
    const limiter = rateLimiter({ limit: 100, window: '1m' });
    expectTypeOf(limiter).toMatchTypeOf<MiddlewareHandler>();
    expectTypeOf(limiter.peek).parameter(0).toEqualTypeOf<Context>();
    expectTypeOf(limiter.reset).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf(rateLimitStatus(limiter)).toMatchTypeOf<Handler>();
  });

  it("hands Hono's c to the user layer, byUser and the option callbacks", () => {
    const algorithm = tokenBucket({ capacity: 5, refillRate: 1 });
    layered({
      user: {
        id: (c) => {
          expectTypeOf(c).toEqualTypeOf<Context>();
          return c.req.header('x-user');
        },
        algorithm,
      },
    });
    byUser((c) => {
      expectTypeOf(c).toEqualTypeOf<Context>();
      return c.req.header('x-user');
    });
    expectTypeOf<NonNullable<RateLimiterOptions['skip']>>().parameter(0).toEqualTypeOf<Context>();
  });

  it('refuses options that are not options', () => {
    // @ts-expect-error: `limt` is not an option
    rateLimiter({ limt: 100, window: '1m' });
    // @ts-expect-error: trustProxy is false, true, a hop count or addresses
    rateLimiter({ limit: 100, window: '1m', trustProxy: 'yes' });
    rateLimiter({ limits: layered({ ip: slidingWindow({ limit: 100, window: '1m' }) }) });
  });
});
