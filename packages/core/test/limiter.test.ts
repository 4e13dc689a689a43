import { describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow, MemoryStore } from '@floodgate/core';
import { contextOf } from './keys/context';

const ctx = (ip: string) => contextOf({ ip });

describe('a limiter of one fixedWindow layer', () => {
  it('allows limit requests per aligned window, then denies with the exact wait', async () => {
    let now = 60_000;
    const limiter = createLimiter({
      clock: () => now,
      limits: [{ name: 'ip', key: (c) => c.ip, algorithm: fixedWindow({ limit: 2, window: '1m' }) }],
    });
    expect((await limiter.consume(ctx('a'))).remaining).toBe(1);
    expect((await limiter.consume(ctx('a'))).remaining).toBe(0);
    now = 90_000;
    const denied = await limiter.consume(ctx('a'));
    expect(denied).toMatchObject({ allowed: false, rule: 'ip', retryAfter: 30_000, resetAt: 120_000 });
    now = 119_999;
    expect((await limiter.consume(ctx('a'))).allowed).toBe(false);
    now = 120_000;
    expect((await limiter.consume(ctx('a'))).allowed).toBe(true);
  });

  it('keeps the store bounded by maxKeys', async () => {
    const store = new MemoryStore({ maxKeys: 10 });
    const limiter = createLimiter({
      store,
      limits: [{ name: 'ip', key: (c) => c.ip, algorithm: fixedWindow({ limit: 1, window: 1000 }) }],
    });
    for (let i = 0; i < 50; i++) await limiter.consume(ctx(`10.0.0.${i}`));
    expect(store.size).toBe(10);
  });
});
