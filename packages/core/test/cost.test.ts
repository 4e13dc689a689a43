import { describe, expect, it } from 'vitest';
import { concurrency, createLimiter, fixedWindow, MemoryStore, tokenBucket } from '@floodgate/core';
import type { KeyContext } from '@floodgate/core';
import { contextOf } from './keys/context';

const T0 = Date.UTC(2026, 0, 1);
const clock = () => T0;
const ctx: KeyContext = contextOf({ ip: '203.0.113.7' });

function bucketOfTen() {
  return createLimiter({
    store: new MemoryStore({ clock }),
    clock,
    limits: [{ name: 'ip', key: (c) => c.ip, algorithm: tokenBucket({ capacity: 10, refillRate: 1 }) }],
  });
}

describe('per-call cost (catalogue B20)', () => {
  it.each([
    [11, 'cost 11 exceeds what rule "ip" (tokenBucket) can ever admit: at most 10'],
    [-1, 'cost must be an integer >= 0, got -1'],
    [0.5, 'cost must be an integer >= 0, got 0.5'],
    [Number.NaN, 'cost must be an integer >= 0, got NaN'],
    ['2', 'cost must be an integer >= 0, got "2"'],
  ])('rejects a cost of %o with an InvalidCostError (a RangeError), and charges nothing', async (cost, message) => {
    const limiter = bucketOfTen();
    const refused = limiter.consume(ctx, { cost: cost as number });
    await expect(refused).rejects.toThrow(message);
    await expect(refused).rejects.toMatchObject({ name: 'InvalidCostError', code: 'ERR_FLOODGATE_INVALID_COST' });
    await expect(refused).rejects.toBeInstanceOf(RangeError);
    // The whole bucket is still there: a refused cost is not a partial charge, nor a refill.
    expect(await limiter.consume(ctx, { cost: 10 })).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.consume(ctx)).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('a cost of 0 asks without charging', async () => {
    const limiter = bucketOfTen();
    expect(await limiter.consume(ctx, { cost: 0 })).toMatchObject({ allowed: true, remaining: 10 });
    expect(await limiter.consume(ctx, { cost: 10 })).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('a refund larger than a concurrency layer’s max still reaches the other layers', async () => {
    const limiter = createLimiter({
      store: new MemoryStore({ clock }),
      clock,
      limits: [
        { name: 'ip', key: (c) => c.ip, algorithm: fixedWindow({ limit: 10, window: '1m' }) },
        { name: 'slots', key: (c) => c.ip, algorithm: concurrency({ max: 2 }) },
      ],
    });
    const first = await limiter.consume(ctx, { cost: 2 });
    expect(first.results.find((layer) => layer.rule === 'ip')).toMatchObject({ allowed: true, remaining: 8 });
    await limiter.refund(ctx, { cost: 5 });
    await first.release?.();
    const after = await limiter.consume(ctx);
    expect(after.results.find((layer) => layer.rule === 'ip')).toMatchObject({ remaining: 9 });
  });
});
