import { describe, expect, it } from 'vitest';
import { byIp, concurrency, createLimiter, fixedWindow, MemoryStore, tokenBucket } from '@floodgate/core';
import type { KeyContext } from '@floodgate/core';
import { contextOf } from './keys/context';

const T0 = Date.UTC(2026, 0, 1);
const clock = () => T0;
const ctx: KeyContext = contextOf({ ip: '203.0.113.7' });

function bucketOfTen() {
  return createLimiter({
    store: new MemoryStore({ clock }),
    clock,
    limits: [{ name: 'ip', key: byIp(), algorithm: tokenBucket({ capacity: 10, refillRate: 1 }) }],
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

describe('issue 19.8: limiter.refund(ctx, { cost })', () => {
  it('gives back at most what consume(ctx) charged, less what was given back already', async () => {
    const limiter = bucketOfTen();
    const charged = contextOf({ ip: '203.0.113.7' });
    expect(await limiter.consume(charged, { cost: 4 })).toMatchObject({ allowed: true, remaining: 6 });
    await limiter.refund(charged, { cost: 100 });
    await limiter.refund(charged, { cost: 3 });
    expect(await limiter.consume(contextOf({ ip: '203.0.113.7' }), { cost: 0 })).toMatchObject({ remaining: 10 });
    expect(await limiter.consume(charged, { cost: 10 })).toMatchObject({ allowed: true, remaining: 0 });
    await limiter.refund(charged, { cost: 2 });
    await limiter.refund(charged, { cost: 2 });
    expect(await limiter.consume(contextOf({ ip: '203.0.113.7' }), { cost: 0 })).toMatchObject({ remaining: 4 });
  });

  it('gives nothing back after a denied consume: it charged nothing', async () => {
    const limiter = bucketOfTen();
    await limiter.consume(ctx, { cost: 10 });
    const denied = contextOf({ ip: '203.0.113.7' });
    expect(await limiter.consume(denied)).toMatchObject({ allowed: false });
    await limiter.refund(denied, { cost: 5 });
    expect(await limiter.consume(contextOf({ ip: '203.0.113.7' }), { cost: 0 })).toMatchObject({ remaining: 0 });
  });

  it('for a ctx it has not seen, gives the cost back to the keys the ctx maps to', async () => {
    const limiter = bucketOfTen();
    await limiter.consume(contextOf({ ip: '203.0.113.9' }), { cost: 6 });
    await limiter.refund(contextOf({ ip: '203.0.113.9' }), { cost: 2 });
    expect(await limiter.consume(contextOf({ ip: '203.0.113.9' }), { cost: 0 })).toMatchObject({ remaining: 6 });
  });

  it('for a ctx it has not seen, gives nothing back to a key other clients share', async () => {
    const limiter = createLimiter({
      store: new MemoryStore({ clock }),
      clock,
      limits: [
        { name: 'ip', key: byIp(), algorithm: tokenBucket({ capacity: 10, refillRate: 1 }) },
        { name: 'global', key: () => 'all', algorithm: tokenBucket({ capacity: 100, refillRate: 1 }) },
      ],
    });
    await limiter.consume(contextOf({ ip: '203.0.113.9' }), { cost: 6 });
    await limiter.consume(contextOf({ ip: '203.0.113.10' }), { cost: 6 });
    await limiter.refund(contextOf({ ip: '203.0.113.9' }), { cost: 6 });
    const after = await limiter.consume(contextOf({ ip: '203.0.113.9' }), { cost: 0 });
    expect(after.results.map((r) => [r.rule, r.remaining])).toEqual([
      ['ip', 10],
      ['global', 88],
    ]);
  });

  it.each([-5, 1.5, Number.NaN, '2'])(
    'rejects a cost of %o with ERR_FLOODGATE_INVALID_COST, seen ctx or not',
    async (cost) => {
      const limiter = bucketOfTen();
      const seen = contextOf({ ip: '203.0.113.7' });
      await limiter.consume(seen, { cost: 5 });
      for (const target of [seen, contextOf({ ip: '203.0.113.7' })]) {
        await expect(limiter.refund(target, { cost: cost as number })).rejects.toMatchObject({
          code: 'ERR_FLOODGATE_INVALID_COST',
          message: `refund: the units to give back must be an integer >= 0, got ${typeof cost === 'string' ? `"${cost}"` : cost}`,
        });
      }
      expect(await limiter.consume(contextOf({ ip: '203.0.113.7' }), { cost: 0 })).toMatchObject({ remaining: 5 });
    },
  );
});
