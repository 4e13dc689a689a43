import { describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow, MemoryStore } from '@floodgate/core';
import type { LimitRule } from '@floodgate/core';
import { contextOf } from './keys/context';

const T0 = Date.UTC(2026, 0, 1);
const clock = () => T0;
const ctx = contextOf({ ip: '203.0.113.7' });
/** 5 a minute, 2 of them kept for critical requests. */
const reserved = fixedWindow({ limit: 5, window: '1m', reserve: 2 });

function limiterOf(rule: Partial<LimitRule> = {}) {
  return createLimiter({
    store: new MemoryStore({ clock }),
    clock,
    priority: () => 'normal',
    limits: [{ name: 'ip', key: (c) => c.ip, algorithm: reserved, ...rule }],
  });
}

describe("issue 19.3: consume(ctx, { priority }), the caller's word for a request it knows the route of", () => {
  it("'critical' stands for the limiter's priority function and opens the reserve", async () => {
    const limiter = limiterOf();
    const allowed = async (priority?: 'critical') =>
      (await limiter.consume(ctx, priority === undefined ? {} : { priority })).allowed;
    expect([await allowed(), await allowed(), await allowed(), await allowed()]).toEqual([true, true, true, false]);
    expect(await limiter.peek(ctx, { priority: 'critical' })).toMatchObject({ allowed: true, limit: 5, remaining: 1 });
    expect([await allowed('critical'), await allowed('critical'), await allowed('critical')]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("'normal' keeps a request out of the reserve even where the limiter's function says critical", async () => {
    const limiter = createLimiter({
      store: new MemoryStore({ clock }),
      clock,
      priority: () => 'critical',
      limits: [{ name: 'ip', key: (c) => c.ip, algorithm: reserved }],
    });
    for (let i = 0; i < 3; i++) await limiter.consume(ctx, { priority: 'normal' });
    expect(await limiter.consume(ctx, { priority: 'normal' })).toMatchObject({ allowed: false, limit: 3 });
    expect(await limiter.consume(ctx)).toMatchObject({ allowed: true, limit: 5 });
  });

  it("a rule's own priority function still decides for its rule", async () => {
    const limiter = limiterOf({ priority: () => 'normal' });
    for (let i = 0; i < 3; i++) await limiter.consume(ctx, { priority: 'critical' });
    expect(await limiter.consume(ctx, { priority: 'critical' })).toMatchObject({ allowed: false, limit: 3 });
  });

  it.each(['high', 'CRITICAL', true, 1])('rejects a priority of %o, naming the option', async (priority) => {
    const limiter = limiterOf();
    await expect(limiter.consume(ctx, { priority: priority as 'critical' })).rejects.toMatchObject({
      code: 'ERR_FLOODGATE_INVALID_OPTION',
      message: expect.stringMatching(/^consume\.priority must be one of 'critical', 'normal', got /),
    });
    await expect(limiter.peek(ctx, { priority: priority as 'critical' })).rejects.toMatchObject({
      code: 'ERR_FLOODGATE_INVALID_OPTION',
    });
  });
});
