import { describe, expect, test } from 'vitest';
import { adaptiveConcurrency, createLimiter } from '../../src';

const bad = (options: unknown) => () => adaptiveConcurrency(options as Parameters<typeof adaptiveConcurrency>[0]);

describe('adaptiveConcurrency options', () => {
  test('defaults: Vegas, limit 20 within 4..1000, no reserve', () => {
    const snapshot = adaptiveConcurrency().snapshot();
    expect(snapshot).toMatchObject({ algorithm: 'vegas', limit: 20, normalLimit: 20, inFlight: 0 });
    expect(adaptiveConcurrency({ algorithm: 'gradient2' }).snapshot().algorithm).toBe('gradient2');
  });

  test.each([
    [{ algorithm: 'aimd' }, /adaptiveConcurrency\.algorithm must be one of 'gradient2', 'vegas', got "aimd"/],
    [{ initialLimit: 0 }, /adaptiveConcurrency\.initialLimit must be an integer >= 1, got 0/],
    [{ maxLimit: 2.5 }, /adaptiveConcurrency\.maxLimit must be an integer >= 1, got 2\.5/],
    [
      { minLimit: 30, maxLimit: 20 },
      /minLimit <= initialLimit <= maxLimit must hold, got minLimit 30, initialLimit 20, maxLimit 20/,
    ],
    [
      { minLimit: 10, initialLimit: 5 },
      /minLimit <= initialLimit <= maxLimit must hold, got minLimit 10, initialLimit 5/,
    ],
    [{ smoothing: 0 }, /adaptiveConcurrency\.smoothing must be a number in \(0, 1\], got 0/],
    [{ smoothing: '0.5' }, /adaptiveConcurrency\.smoothing must be a number in \(0, 1\], got "0\.5"/],
    [{ reserve: 1 }, /adaptiveConcurrency\.reserve must be a number in \[0, 1\), got 1/],
    [{ tolerance: 1.2 }, /adaptiveConcurrency\.tolerance applies to algorithm 'gradient2' only/],
    [{ algorithm: 'gradient2', tolerance: 0.5 }, /adaptiveConcurrency\.tolerance must be a number >= 1, got 0\.5/],
    [{ window: -1 }, /adaptiveConcurrency\.window must be an integer >= 1, got -1/],
    [{ probeInterval: 'soon' }, /adaptiveConcurrency\.probeInterval/],
    [{ retryAfter: -5 }, /adaptiveConcurrency\.retryAfter/],
    [{ name: 'a b' }, /adaptiveConcurrency\.name must be 1-64 characters/],
    [{ priority: 'critical' }, /adaptiveConcurrency\.priority must be a function, got "critical"/],
    [{ max: 10 }, /adaptiveConcurrency: unknown option "max"/],
  ])('%j is refused with a coded error naming the option', (options, message) => {
    expect(bad(options)).toThrow(message);
    expect(bad(options)).toThrow(expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION' }));
  });

  test('createLimiter refuses it with a pointer to the middleware (it is per process, not a stored rule)', () => {
    expect(() => createLimiter({ limits: [adaptiveConcurrency() as never] })).toThrow(
      /createLimiter\.limits\[0\] is adaptiveConcurrency\(\).*middleware/,
    );
  });
});
