import { describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow, MemoryStore } from '@floodgate/core';
import type { FloodgateWarning } from '@floodgate/core';
import { contextOf } from './keys/context';

// A frozen clock: on the real one a minute boundary between the requests would reset the window.
const T0 = Date.UTC(2026, 0, 1);
const clock = () => T0;

describe("a key function is held to the limiter's timeout, like an algorithm function", () => {
  it('a key that never settles is counted under the rule by client address once the timeout has passed', async () => {
    const warnings: FloodgateWarning[] = [];
    const store = new MemoryStore({ clock });
    const limiter = createLimiter({
      clock,
      limits: [
        { name: 'user', key: () => new Promise<string>(() => {}), algorithm: fixedWindow({ limit: 2, window: '1m' }) },
      ],
      store,
      timeout: 20,
      onWarning: (warning) => warnings.push(warning),
    });
    const ctx = contextOf({ ip: '203.0.113.7' });
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push(await limiter.consume(ctx));
    // Charged, under one key per address: the third request of that address is refused.
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, false]);
    expect(decisions[2]?.degraded).toBe(false);
    expect(warnings[0]).toMatchObject({
      code: 'WARN_FLOODGATE_KEY_FUNCTION_FAILED',
      message: expect.stringContaining(
        'the key function of rule "user" did not settle within 20 ms (the limiter\'s timeout); such requests are counted under that rule by client address',
      ),
    });
  });

  it('a key that settles in time is used as given', async () => {
    const limiter = createLimiter({
      limits: [{ name: 'user', key: async () => 'alice', algorithm: fixedWindow({ limit: 1, window: '1m' }) }],
      clock,
      timeout: 1000,
      onWarning: () => {},
    });
    const first = await limiter.consume(contextOf({ ip: '203.0.113.7' }));
    const other = await limiter.consume(contextOf({ ip: '198.51.100.9' }));
    expect([first.allowed, other.allowed]).toEqual([true, false]);
  });
});
