import { describe, expect, it } from 'vitest';
import { concurrency, gcra, leakyBucket, slidingLog, slidingWindow, tokenBucket } from '@floodgate/core';
import { type BadOptions, expectOptionError } from './option-errors';

const factories = { tokenBucket, leakyBucket, gcra, concurrency };

const bad: BadOptions[] = [
  // tokenBucket
  ['tokenBucket', null, 'InvalidOptionTypeError', 'tokenBucket: options must be an object, got null'],
  [
    'tokenBucket',
    { capacity: 0, refillRate: 1 },
    'InvalidOptionError',
    'tokenBucket.capacity must be an integer >= 1, got 0',
  ],
  [
    'tokenBucket',
    { capacity: 1.5, refillRate: 1 },
    'InvalidOptionError',
    'tokenBucket.capacity must be an integer >= 1, got 1.5',
  ],
  [
    'tokenBucket',
    { capacity: 10, refillRate: 0 },
    'InvalidOptionError',
    'tokenBucket.refillRate must be a finite number > 0, got 0',
  ],
  [
    'tokenBucket',
    { capacity: 10, refillRate: -2 },
    'InvalidOptionError',
    'tokenBucket.refillRate must be a finite number > 0, got -2',
  ],
  [
    'tokenBucket',
    { capacity: 10, refillRate: Number.NaN },
    'InvalidOptionError',
    'tokenBucket.refillRate must be a finite number > 0, got NaN',
  ],
  [
    'tokenBucket',
    { capacity: 10, refillRate: Number.POSITIVE_INFINITY },
    'InvalidOptionError',
    'tokenBucket.refillRate must be a finite number > 0, got Infinity',
  ],
  [
    'tokenBucket',
    { capacity: 10, refillRate: '5' },
    'InvalidOptionTypeError',
    'tokenBucket.refillRate must be a finite number > 0, got "5"',
  ],
  [
    'tokenBucket',
    { capacity: 10, refillRate: 0.1234567 },
    'InvalidOptionError',
    'tokenBucket.refillRate must have at most 6 decimals, got 0.1234567',
  ],
  [
    'tokenBucket',
    { capacity: 10_000_000, refillRate: 0.000001 },
    'InvalidOptionError',
    'tokenBucket: capacity 10000000 with refillRate 0.000001 needs 10000000000000000 integer units, too many to count exactly (at most 2^52); use a smaller size or a rate with fewer decimals',
  ],
  [
    'tokenBucket',
    { capacity: 10, refillRate: 1, burst: 5 },
    'InvalidOptionTypeError',
    'tokenBucket: unknown option "burst"; expected one of capacity, refillRate, reserve',
  ],
  // leakyBucket
  ['leakyBucket', 'fast', 'InvalidOptionTypeError', 'leakyBucket: options must be an object, got "fast"'],
  [
    'leakyBucket',
    { capacity: -1, leakRate: 1 },
    'InvalidOptionError',
    'leakyBucket.capacity must be an integer >= 1, got -1',
  ],
  [
    'leakyBucket',
    { capacity: 10, leakRate: 0 },
    'InvalidOptionError',
    'leakyBucket.leakRate must be a finite number > 0, got 0',
  ],
  [
    'leakyBucket',
    { capacity: 10, leakRate: 1e-7 },
    'InvalidOptionError',
    'leakyBucket.leakRate must have at most 6 decimals, got 1e-7',
  ],
  [
    'leakyBucket',
    { capacity: 10, leakRate: 1, mode: 'queue' },
    'InvalidOptionTypeError',
    `leakyBucket.mode must be one of 'policing', 'shaping', got "queue"`,
  ],
  [
    'leakyBucket',
    { capacity: 10, leakRate: 1, mode: null },
    'InvalidOptionTypeError',
    `leakyBucket.mode must be one of 'policing', 'shaping', got null`,
  ],
  [
    'leakyBucket',
    { capacity: 10, leakRate: 1, rate: 1 },
    'InvalidOptionTypeError',
    'leakyBucket: unknown option "rate"; expected one of capacity, leakRate, mode, reserve',
  ],
  // gcra
  ['gcra', 42, 'InvalidOptionTypeError', 'gcra: options must be an object, got 42'],
  ['gcra', { rate: 0, period: '1s', burst: 0 }, 'InvalidOptionError', 'gcra.rate must be an integer >= 1, got 0'],
  ['gcra', { rate: 2.5, period: '1s', burst: 0 }, 'InvalidOptionError', 'gcra.rate must be an integer >= 1, got 2.5'],
  [
    'gcra',
    { rate: 10, period: 0, burst: 0 },
    'InvalidOptionError',
    'gcra.period must be a whole number of milliseconds >= 1, got 0',
  ],
  [
    'gcra',
    { rate: 10, period: '', burst: 0 },
    'InvalidOptionError',
    `gcra.period must be a number followed by one of ms, s, m, h, d (such as '500ms' or '10 s'), got ""`,
  ],
  ['gcra', { rate: 10, period: '1s', burst: -1 }, 'InvalidOptionError', 'gcra.burst must be an integer >= 0, got -1'],
  [
    'gcra',
    { rate: 10, period: '1s', burst: Number.NaN },
    'InvalidOptionError',
    'gcra.burst must be an integer >= 0, got NaN',
  ],
  ['gcra', { rate: 10, period: '1s' }, 'InvalidOptionTypeError', 'gcra.burst must be an integer >= 0, got undefined'],
  [
    'gcra',
    { rate: 1, period: '1d', burst: 100_000_000 },
    'InvalidOptionError',
    'gcra: burst 100000000 with rate 1 per period 86400000 ms needs 8640000086400000 integer units, too many to count exactly (at most 2^52); use a smaller size or a rate with fewer decimals',
  ],
  [
    'gcra',
    { rate: 10, period: '1s', burst: 0, limit: 3 },
    'InvalidOptionTypeError',
    'gcra: unknown option "limit"; expected one of rate, period, burst, reserve',
  ],
  // concurrency
  ['concurrency', undefined, 'InvalidOptionTypeError', 'concurrency: options must be an object, got undefined'],
  ['concurrency', { max: 0 }, 'InvalidOptionError', 'concurrency.max must be an integer >= 1, got 0'],
  [
    'concurrency',
    { max: Number.POSITIVE_INFINITY },
    'InvalidOptionError',
    'concurrency.max must be an integer >= 1, got Infinity',
  ],
  [
    'concurrency',
    { max: 5, lease: 0 },
    'InvalidOptionError',
    'concurrency.lease must be a whole number of milliseconds >= 1, got 0',
  ],
  [
    'concurrency',
    { max: 5, lease: -30 },
    'InvalidOptionError',
    'concurrency.lease must be a finite number of milliseconds >= 0, got -30',
  ],
  [
    'concurrency',
    { max: 5, lease: '30 sec' },
    'InvalidOptionError',
    `concurrency.lease must be a number followed by one of ms, s, m, h, d (such as '500ms' or '10 s'), got "30 sec"`,
  ],
  [
    'concurrency',
    { max: 5, timeout: '1s' },
    'InvalidOptionTypeError',
    'concurrency: unknown option "timeout"; expected one of max, lease',
  ],
];

describe('tokenBucket, leakyBucket, gcra and concurrency options', () => {
  it.each(bad)('%s(%o) throws %s: %s', (...row) => {
    expectOptionError(factories[row[0] as keyof typeof factories], row);
  });

  it('never mutates the options object it is given', () => {
    const options = Object.freeze({ capacity: 5, leakRate: 1.5 });
    expect(leakyBucket(options).options).toEqual({ capacity: 5, leakRate: 1.5, mode: 'policing' });
    expect(options).toEqual({ capacity: 5, leakRate: 1.5 });
  });

  it('divides each quota among instances, keeping at least one unit', () => {
    expect(slidingLog({ limit: 10, window: '1m' }).divide(3).limit).toBe(3);
    expect(slidingWindow({ limit: 2, window: '1m' }).divide(5).limit).toBe(1);
    expect(tokenBucket({ capacity: 10, refillRate: 1 }).divide(3).options).toEqual({
      capacity: 3,
      refillRate: 0.333333,
    });
    expect(leakyBucket({ capacity: 9, leakRate: 3, mode: 'shaping' }).divide(3).options).toEqual({
      capacity: 3,
      leakRate: 1,
      mode: 'shaping',
    });
    expect(gcra({ rate: 10, period: '1s', burst: 5 }).divide(2).options).toEqual({ rate: 10, period: 2000, burst: 2 });
    expect(concurrency({ max: 4, lease: '5s' }).divide(8).options).toEqual({ max: 1, lease: 5000 });
  });
});
