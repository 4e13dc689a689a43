import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { MemoryStore, rateLimit, rateLimitStatus } from '../src/index';
import type { RateLimitState } from '../src/index';

// The package on its own: options are checked once, with a coded error naming the option, and a
// request through a real Koa server leaves its decision on ctx.state.rateLimit. The shared
// adapter suites (test/adapters) run Koa through everything else, on MemoryStore and RedisStore.

describe('rateLimit', () => {
  it('refuses bad options when it is made, naming the option and the value', () => {
    expect(() => rateLimit({ limit: 0, window: '1m' })).toThrow(
      expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION', message: expect.stringContaining('limit') }),
    );
    expect(() => rateLimit({ limit: 5, window: '1m', statusCode: 200 })).toThrow(/statusCode/);
    expect(() => rateLimit({ limit: 5, window: '1m', trustProxy: true } as never)).toThrow(/trustProxy/);
  });

  it('leaves the decision on ctx.state.rateLimit and answers the 429 itself', async () => {
    const app = new Koa<RateLimitState>();
    const limiter = rateLimit({ limit: 2, window: '1m', store: new MemoryStore() });
    app.use(limiter);
    app.use((ctx) => {
      ctx.body = { remaining: ctx.state.rateLimit?.remaining, cost: ctx.state.rateLimit?.cost };
    });
    const server = createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      expect(await (await fetch(url)).json()).toEqual({ remaining: 1, cost: 1 });
      expect(await (await fetch(url)).json()).toEqual({ remaining: 0, cost: 1 });
      const denied = await fetch(url);
      expect([denied.status, denied.headers.get('content-type')]).toEqual([429, 'application/problem+json']);
      expect(typeof limiter.peek).toBe('function');
      expect(typeof rateLimitStatus(limiter)).toBe('function');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
