import { describe, expectTypeOf, it } from 'vitest';
import { byUser, layered, rateLimit, rateLimitStatus, slidingWindow, tokenBucket } from '../src/index';
import type { RateLimitInfo, RateLimitOptions } from '../src/index';
import type { Request, RequestHandler } from 'express';

describe('@floodgate/express types', () => {
  it('adds req.rateLimit: the decision, or undefined when skipped', () => {
    expectTypeOf<Request['rateLimit']>().toEqualTypeOf<RateLimitInfo | undefined>();
    expectTypeOf<RateLimitInfo['refund']>().toEqualTypeOf<(n?: number) => Promise<void>>();
  });

  it('returns middleware Express accepts', () => {
    const limiter = rateLimit({ limit: 100, window: '1m' });
    expectTypeOf(limiter).toMatchTypeOf<RequestHandler>();
    expectTypeOf(limiter.peek).parameter(0).toEqualTypeOf<Request>();
    expectTypeOf(limiter.block).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf(rateLimitStatus(limiter)).toMatchTypeOf<RequestHandler>();
  });

  it("hands Express' req to the user layer, byUser and the option callbacks", () => {
    const algorithm = tokenBucket({ capacity: 5, refillRate: 1 });
    layered({
      user: {
        id: (req) => {
          expectTypeOf(req).toEqualTypeOf<Request>();
          return req.get('x-user');
        },
        algorithm,
      },
    });
    byUser((req) => {
      expectTypeOf(req).toEqualTypeOf<Request>();
      return req.ip;
    });
    expectTypeOf<NonNullable<RateLimitOptions['skip']>>().parameter(0).toEqualTypeOf<Request>();
    expectTypeOf<NonNullable<RateLimitOptions['cost']>>().returns.toEqualTypeOf<number | Promise<number>>();
  });

  it('refuses options that are not options', () => {
    // @ts-expect-error: `limt` is not an option
    rateLimit({ limt: 100, window: '1m' });
    // @ts-expect-error: a limit is a number
    rateLimit({ limit: '100', window: '1m' });
    // @ts-expect-error: a window needs a unit
    rateLimit({ limit: 100, window: '1 minute' });
    rateLimit({ limits: layered({ ip: slidingWindow({ limit: 100, window: '1m' }) }) });
  });
});
