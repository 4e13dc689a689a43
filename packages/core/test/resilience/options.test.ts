import { describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow, type Store } from '@floodgate/core';
import { contextOf } from '../keys/context';

const limits = [{ name: 'ip', key: () => 'x', algorithm: fixedWindow({ limit: 1, window: 1000 }) }];
const attempt = (extra: Record<string, unknown>) => () => createLimiter({ limits, ...extra } as never);

describe('resilience options', () => {
  it('accepts every documented option', () => {
    const options = {
      limits,
      timeout: '50ms' as const,
      failMode: 'closed' as const,
      instances: 4,
      breaker: { failureThreshold: 3, failureWindow: '5 s' as const, cooldown: 1000, probeInterval: '250ms' as const },
      denyCache: { maxKeys: 100 },
      onDecision: () => {},
      onLimited: () => {},
      onStoreError: () => {},
      onBreakerChange: () => {},
    };
    // Frozen, so any attempt to write defaults into the caller's objects would throw.
    Object.freeze(options.breaker);
    Object.freeze(options.denyCache);
    expect(createLimiter(Object.freeze(options)).prefix).toBe('fg');
    expect(createLimiter({ limits, denyCache: false }).prefix).toBe('fg');
  });

  it.each([
    [{ timeout: 0 }, /createLimiter\.timeout.*got 0/],
    [{ timeout: '1 week' }, /createLimiter\.timeout.*"1 week"/],
    [
      { timeout: '30d' },
      /createLimiter\.timeout must be a whole number of milliseconds from 1 to 2147483647 \(the longest timer\), got "30d"/,
    ],
    [{ timeout: 2 ** 31 }, /createLimiter\.timeout .*got 2147483648/],
    [{ failMode: 'fail-open' }, /createLimiter\.failMode must be one of 'local', 'open', 'closed', got "fail-open"/],
    [{ instances: 0 }, /createLimiter\.instances must be an integer >= 1, got 0/],
    [{ instances: 2.5 }, /createLimiter\.instances.*2\.5/],
    [{ breaker: { failureThreshold: -1 } }, /createLimiter\.breaker\.failureThreshold.*-1/],
    [{ breaker: { cooldown: Number.NaN } }, /createLimiter\.breaker\.cooldown.*NaN/],
    [{ breaker: { probeInterval: 0 } }, /createLimiter\.breaker\.probeInterval.*got 0/],
    [{ breaker: { threshold: 5 } }, /createLimiter\.breaker: unknown option "threshold"/],
    [{ breaker: 5 }, /createLimiter\.breaker.*got 5/],
    [{ denyCache: { maxKeys: 0 } }, /createLimiter\.denyCache\.maxKeys.*got 0/],
    [{ denyCache: 'yes' }, /createLimiter\.denyCache must be true, false or \{ maxKeys \}, got "yes"/],
    [{ onDecision: 'log' }, /createLimiter\.onDecision must be a function, got "log"/],
    [{ fallback: 'local' }, /createLimiter: unknown option "fallback"/],
  ])('rejects %o naming the option and the value', (extra, message) => {
    expect(attempt(extra)).toThrow(message);
    try {
      attempt(extra)();
    } catch (error) {
      expect(error).toMatchObject({ code: 'ERR_FLOODGATE_INVALID_OPTION' });
    }
  });

  it('by default opens after 5 failures within 10 s, stays open 0.5 to 1 s, then lets one probe through', async () => {
    let now = 1_000_000;
    let calls = 0;
    const down: Store = {
      consume: async () => {
        calls += 1;
        throw new Error('down');
      },
      refund: async () => {},
    };
    const changes: string[] = [];
    const limiter = createLimiter({
      limits,
      store: down,
      clock: () => now,
      denyCache: false,
      onStoreError: () => {},
      onBreakerChange: ({ to }) => changes.push(to),
    });
    const ctx = contextOf({ ip: '203.0.113.7' });
    // Four failures, then a pause longer than the failure window: the count starts again.
    for (let i = 0; i < 4; i++) await limiter.consume(ctx);
    now += 10_001;
    for (let i = 0; i < 4; i++) await limiter.consume(ctx);
    expect(changes).toEqual([]);
    await limiter.consume(ctx);
    expect(changes).toEqual(['open']);
    expect(calls).toBe(9);
    // probeInterval (1 s), drawn between half and all of it.
    now += 499;
    expect(await limiter.consume(ctx)).toMatchObject({ degraded: true });
    expect(calls).toBe(9);
    now += 501;
    await limiter.consume(ctx);
    expect(calls).toBe(10);
    expect(changes).toEqual(['open', 'half-open', 'open']);
  });
});
