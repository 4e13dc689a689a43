import { createLimiter, fixedWindow } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { describe, expect, it } from 'vitest';
import { freshPrefix } from './fixtures/client.ts';
import { useRedis } from './fixtures/suite.ts';

const suite = useRedis();

/**
 * Issue 8: what a request costs on the Redis path, counted, not timed. The requests of one turn
 * share one script call and one deadline timer: 50 of them must not make a timer or a command each.
 */
describe('the requests of one turn, through a limiter on RedisStore', () => {
  it('share one deadline timer and one script call, and each is decided on its own key', async () => {
    const limiter = createLimiter({
      store: new RedisStore({ client: suite.client, prefix: freshPrefix('turn-cost') }),
      limits: [
        { name: 'user', key: (ctx) => ctx.header('x-user'), algorithm: fixedWindow({ limit: 1, window: '1m' }) },
      ],
    });
    const context = (user: string) => ({
      ip: '203.0.113.9',
      header: (name: string) => (name === 'x-user' ? user : undefined),
      req: {},
    });
    const users = Array.from({ length: 50 }, (_, index) => `u${index % 25}`);
    // The client is connected and the script loaded before counting.
    await limiter.consume(context('warm-up'));

    let timers = 0;
    const setTimeoutBefore = globalThis.setTimeout;
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      timers++;
      return setTimeoutBefore(...args);
    }) as typeof setTimeout;
    let scripts = 0;
    const client = suite.client;
    const callBefore = client.call;
    client.call = function (this: typeof client, ...args: unknown[]) {
      if (args[0] === 'EVALSHA' || args[0] === 'EVAL') scripts++;
      return (callBefore as (...all: unknown[]) => unknown).apply(this, args);
    } as typeof client.call;
    let decisions: { allowed: boolean }[];
    try {
      decisions = await Promise.all(users.map((user) => limiter.consume(context(user))));
    } finally {
      globalThis.setTimeout = setTimeoutBefore;
      client.call = callBefore;
    }
    expect(decisions.map((decision) => decision.allowed)).toEqual(users.map((_, index) => index < 25));
    // One for the limiter's deadline, one for the store's, one for the client's command timeout.
    expect(timers).toBeLessThanOrEqual(3);
    expect(scripts).toBe(1);
  });
});
