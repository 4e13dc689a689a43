import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { concurrency, createLimiter } from '@floodgate/core';
import type { ConcurrencyState } from '../../src/algorithms/concurrency.ts';
import { compareLongRun } from './long-run';
import { concurrencyRef } from './reference';
import { gapArb, START } from './trace';
import { contextOf } from '../keys/context';

const opArb = (lease: number, max: number) =>
  fc.record({
    gap: gapArb(lease),
    cost: fc.integer({ min: 0, max }),
    // Release the k-th oldest request still holding slots instead of acquiring (when release is set).
    release: fc.option(fc.nat(), { freq: 3 }),
  });

describe('concurrency', () => {
  it('never has more than max units in flight, with releases and expiring leases', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 3000 }), fc.gen(), (max, lease, gen) => {
        const algorithm = concurrency({ max, lease });
        const ops = gen((l: number, m: number) => fc.array(opArb(l, m), { maxLength: 200 }), lease, max);
        let state: ConcurrencyState | undefined;
        let holders: { id: string; cost: number; until: number }[] = [];
        let now = START;
        ops.forEach((op, index) => {
          now += op.gap;
          holders = holders.filter((h) => h.until > now);
          if (op.release !== null && holders.length > 0) {
            const [gone] = holders.splice(op.release % holders.length, 1);
            if (gone !== undefined) state = algorithm.refund(state, now, gone.cost, gone.id);
            return;
          }
          const outcome = algorithm.decide(state, now, op.cost, `r${index}`);
          if (!outcome.allowed) return;
          state = outcome.state;
          if (op.cost > 0) holders.push({ id: `r${index}`, cost: op.cost, until: now + lease });
          expect(holders.reduce((sum, h) => sum + h.cost, 0)).toBeLessThanOrEqual(max);
          expect(outcome.remaining).toBe(max - holders.reduce((sum, h) => sum + h.cost, 0));
        });
      }),
      { numRuns: 200 },
    );
  });

  it('agrees with a plain list of leases over one million operations with releases', () => {
    const run = compareLongRun(concurrency({ max: 6, lease: 2000 }), concurrencyRef(6n, 2000n), {
      ops: 1_000_000,
      maxGap: 400,
      releases: true,
    });
    expect(run.allowed).toBeGreaterThan(100_000);
    expect(run.denied).toBeGreaterThan(100_000);
    expect(run.released).toBeGreaterThan(50_000);
  });

  it('frees slots on release, and on lease expiry when the holder never comes back', () => {
    const algorithm = concurrency({ max: 2, lease: '10s' });
    expect(algorithm).toMatchObject({ limit: 2, window: 10_000, maxCost: 2, params: [2, 10_000] });
    let state = algorithm.decide(undefined, START, 1, 'a').state;
    state = algorithm.decide(state, START + 1000, 1, 'b').state;
    expect(algorithm.decide(state, START + 2000, 1, 'c')).toMatchObject({ allowed: false, retryAfter: 8000 });
    expect(algorithm.decide(state, START + 9999, 1, 'c').allowed).toBe(false);
    expect(algorithm.decide(state, START + 10_000, 1, 'c')).toMatchObject({ allowed: true, remaining: 0 });
    const released = algorithm.refund(state, START + 2000, 1, 'b');
    expect(released).toEqual([{ member: 'a:0', expiresAt: START + 10_000 }]);
    expect(algorithm.decide(released, START + 2000, 1, 'c')).toMatchObject({ allowed: true, resetAt: START + 12_000 });
  });

  it('defaults the lease to 30 s', () => {
    expect(concurrency({ max: 1 }).window).toBe(30_000);
  });

  it('is released through the limiter by decision.release()', async () => {
    const now = START;
    const limiter = createLimiter({
      clock: () => now,
      limits: [{ name: 'inflight', key: () => 'one', algorithm: concurrency({ max: 1 }) }],
    });
    const ctx = contextOf({ ip: '192.0.2.1' });
    const first = await limiter.consume(ctx);
    expect(first.allowed).toBe(true);
    expect(await limiter.consume(ctx)).toMatchObject({ allowed: false, retryAfter: 30_000 });
    await first.release?.();
    expect((await limiter.consume(ctx)).allowed).toBe(true);
  });
});
