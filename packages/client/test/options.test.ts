import { describe, expect, it } from 'vitest';
import { politeFetch } from '../src/index';

describe('politeFetch options are checked once, when it is made', () => {
  it.each([
    [{ maxAttempts: 0 }, 'politeFetch.maxAttempts must be an integer from 1 to 100, got 0', 'InvalidOptionError'],
    [
      { maxAttempts: '3' },
      'politeFetch.maxAttempts must be an integer from 1 to 100, got "3"',
      'InvalidOptionTypeError',
    ],
    [{ maxWait: -1 }, 'politeFetch.maxWait must be milliseconds', 'InvalidOptionError'],
    [
      { maxWait: '30 days' },
      'politeFetch.maxWait must be milliseconds from 0 to 2147483647 or a string such as \'10 s\', got "30 days"',
      'InvalidOptionError',
    ],
    [
      { jitter: 0.5 },
      "politeFetch.jitter must be milliseconds from 0 to 2147483647 or a string such as '10 s' (whole milliseconds), got 0.5",
      'InvalidOptionError',
    ],
    [{ jitter: null }, 'politeFetch.jitter must be milliseconds', 'InvalidOptionTypeError'],
    [
      { retryMethods: 'POST' },
      'politeFetch.retryMethods must be an array of method names, got "POST"',
      'InvalidOptionTypeError',
    ],
    [
      { retryMethods: ['GET', 'NOT A METHOD'] },
      'politeFetch.retryMethods[1] must be a method name',
      'InvalidOptionTypeError',
    ],
    [
      { pace: true },
      'politeFetch.pace must be false or an integer >= 0 (units left at which to wait for the reset), got true',
      'InvalidOptionTypeError',
    ],
    [{ pace: -1 }, 'politeFetch.pace must be false or an integer >= 0', 'InvalidOptionError'],
    [
      { fetch: 'https://example.com' },
      'politeFetch.fetch must be a function, got "https://example.com"',
      'InvalidOptionTypeError',
    ],
    [{ onWait: {} }, 'politeFetch.onWait must be a function, got an object', 'InvalidOptionTypeError'],
    [
      { retries: 3 },
      'politeFetch: unknown option "retries"; expected one of fetch, maxAttempts',
      'InvalidOptionTypeError',
    ],
  ])('%o', (options, message, name) => {
    const make = () => politeFetch(options as Parameters<typeof politeFetch>[0]);
    expect(make).toThrow(message);
    expect(make).toThrow(expect.objectContaining({ name, code: 'ERR_FLOODGATE_INVALID_OPTION' }));
  });

  it('takes durations as ms or strings, and leaves the options object alone', () => {
    const options = Object.freeze({ maxWait: '1.5 s', jitter: '250ms', retryMethods: Object.freeze(['get', 'POST']) });
    expect(typeof politeFetch(options)).toBe('function');
    expect(() => politeFetch(null as never)).toThrow('politeFetch: options must be an object, got null');
  });
});
