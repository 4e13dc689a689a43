import { describe, expect, it, vi } from 'vitest';
import { buildHeaders, createLimiter, fixedWindow, MemoryStore, slidingWindow, WarningCode } from '@floodgate/core';
import type { FloodgateWarning } from '@floodgate/core';
import { contextOf } from './keys/context';

/** Issue 9, item 7: a clock that answers NaN or undefined must not stop (or freeze) a limit. */
describe('a clock that does not answer epoch milliseconds', () => {
  it.each([
    ['NaN', Number.NaN],
    ['undefined', undefined],
    ['-1', -1],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a string', '1764140000000'],
  ])('%s: every algorithm still limits, headers carry numbers, and it is reported once', async (_name, reading) => {
    const warnings: FloodgateWarning[] = [];
    const clock = () => reading as number;
    // Each bad reading is replaced by Date.now(): an hour-long fixed window keeps a boundary (which
    // would reset the count) from falling between the three requests.
    for (const algorithm of [fixedWindow({ limit: 2, window: '1h' }), slidingWindow({ limit: 2, window: '1m' })]) {
      const limiter = createLimiter({
        limits: [{ name: 'ip', key: () => 'k', algorithm }],
        clock,
        onWarning: (warning) => warnings.push(warning),
      });
      const decisions = [];
      for (let i = 0; i < 3; i++) decisions.push(await limiter.consume(contextOf()));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
      const headers = buildHeaders(decisions[2] as never, { now: Date.now() });
      for (const value of Object.values(headers)) expect(value).not.toMatch(/NaN|undefined|Infinity/);
      expect(Number(headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    }
    expect(warnings.map((w) => w.code)).toEqual([WarningCode.badClock, WarningCode.badClock]);
    expect(warnings[0]?.message).toMatch(/createLimiter\.clock returned .*not epoch milliseconds/);
  });

  it('a fraction of a millisecond is dropped, and nothing is reported', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const store = new MemoryStore({ clock: () => 1_000.75 });
      const call = { key: 'k', algorithm: fixedWindow({ limit: 5, window: 1000 }), cost: 1 };
      expect(store.consumeNow([call], '')[0]).toMatchObject({ allowed: true, resetAt: 2000, remaining: 4 });
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it("a MemoryStore's own clock is checked too, and reported once on the console", () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const store = new MemoryStore({ clock: () => Number.NaN });
      // Date.now() stands in for NaN: an hour-long window keeps a boundary from falling between the two calls.
      const call = { key: 'k', algorithm: fixedWindow({ limit: 1, window: '1h' }), cost: 1 };
      expect(store.consumeNow([call], '')[0]?.allowed).toBe(true);
      expect(store.consumeNow([call], '')[0]?.allowed).toBe(false);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/WARN_FLOODGATE_BAD_CLOCK: MemoryStore\.clock returned NaN/);
    } finally {
      warn.mockRestore();
    }
  });
});
