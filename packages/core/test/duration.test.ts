import { describe, expect, it } from 'vitest';
import { parseDuration } from '@floodgate/core';

describe('durations', () => {
  it.each([
    [250, 250],
    ['500ms', 500],
    ['10 s', 10_000],
    ['1.5m', 90_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
  ] as const)('reads %o as %i ms', (value, ms) => {
    expect(parseDuration(value, 'window')).toBe(ms);
  });

  const UNITS = "window must be a number followed by one of ms, s, m, h, d (such as '500ms' or '10 s')";
  it.each([
    ['-1m', `${UNITS}, got "-1m"`],
    ['1M', `${UNITS}, got "1M"`],
    ['10', `${UNITS}, got "10"`],
    ['', `${UNITS}, got ""`],
    ['1m30s', `${UNITS}, got "1m30s"`],
    ['0.5ms', 'window must come to a whole number of milliseconds, got "0.5ms"'],
    ['0.0001s', 'window must come to a whole number of milliseconds, got "0.0001s"'],
    [-1, 'window must be a finite number of milliseconds >= 0, got -1'],
    [Number.NaN, 'window must be a finite number of milliseconds >= 0, got NaN'],
  ])('rejects %o, naming the option and the value', (value, message) => {
    expect(() => parseDuration(value as never, 'window')).toThrow(message);
  });
});
