import { describe, it } from 'vitest';
import { fixedWindow, slidingLog, slidingWindow } from '@floodgate/core';
import { type BadOptions, expectOptionError } from './option-errors';

const factories = { fixedWindow, slidingLog, slidingWindow };

const bad: BadOptions[] = [
  // Shared by the three counters: same option names, same checks.
  ...['fixedWindow', 'slidingLog', 'slidingWindow'].flatMap((name): [string, unknown, string, string][] => [
    [name, undefined, 'InvalidOptionTypeError', `${name}: options must be an object, got undefined`],
    [name, [100, '1m'], 'InvalidOptionTypeError', `${name}: options must be an object, got an array`],
    [name, { limit: 0, window: '1m' }, 'InvalidOptionError', `${name}.limit must be an integer >= 1, got 0`],
    [name, { limit: -5, window: '1m' }, 'InvalidOptionError', `${name}.limit must be an integer >= 1, got -5`],
    [name, { limit: 2.5, window: '1m' }, 'InvalidOptionError', `${name}.limit must be an integer >= 1, got 2.5`],
    [name, { limit: Number.NaN, window: '1m' }, 'InvalidOptionError', `${name}.limit must be an integer >= 1, got NaN`],
    [
      name,
      { limit: Number.POSITIVE_INFINITY, window: '1m' },
      'InvalidOptionError',
      `${name}.limit must be an integer >= 1, got Infinity`,
    ],
    [
      name,
      { limit: '100', window: '1m' },
      'InvalidOptionTypeError',
      `${name}.limit must be an integer >= 1, got "100"`,
    ],
    [name, { window: '1m' }, 'InvalidOptionTypeError', `${name}.limit must be an integer >= 1, got undefined`],
    [
      name,
      { limit: 10, window: 0 },
      'InvalidOptionError',
      `${name}.window must be a whole number of milliseconds >= 1, got 0`,
    ],
    [
      name,
      { limit: 10, window: 1.5 },
      'InvalidOptionError',
      `${name}.window must be a whole number of milliseconds >= 1, got 1.5`,
    ],
    [
      name,
      { limit: 10, window: -1000 },
      'InvalidOptionError',
      `${name}.window must be a finite number of milliseconds >= 0, got -1000`,
    ],
    [
      name,
      { limit: 10, window: Number.POSITIVE_INFINITY },
      'InvalidOptionError',
      `${name}.window must be a finite number of milliseconds >= 0, got Infinity`,
    ],
    [
      name,
      { limit: 10, window: '1 minute' },
      'InvalidOptionError',
      `${name}.window must be a number followed by one of ms, s, m, h, d (such as '500ms' or '10 s'), got "1 minute"`,
    ],
    [
      name,
      { limit: 10, window: '1m', limt: 5 },
      'InvalidOptionTypeError',
      `${name}: unknown option "limt"; expected one of limit, window${name === 'slidingLog' ? '' : ', reserve'}`,
    ],
  ]),
  [
    // Issue 9, item 8: a slidingLog keeps an entry per unit, so its limit bounds a key's memory.
    'slidingLog',
    { limit: 10_001, window: '1m' },
    'InvalidOptionError',
    'slidingLog.limit must be at most 10000 (it keeps one entry per unit admitted in the window), got 10001; use slidingWindow or gcra for larger limits',
  ],
  [
    'slidingWindow',
    { limit: 1_000_000_000, window: '1d' },
    'InvalidOptionError',
    'slidingWindow: limit * window * 2 must stay below 2^53 to be computed exactly, got limit 1000000000 and window 86400000 ms',
  ],
];

describe('fixedWindow, slidingLog and slidingWindow options', () => {
  it.each(bad)('%s(%o) throws %s: %s', (...row) => {
    expectOptionError(factories[row[0] as keyof typeof factories], row);
  });
});
