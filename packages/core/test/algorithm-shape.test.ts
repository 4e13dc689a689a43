import { describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow, layered } from '@floodgate/core';
import type { Algorithm, FloodgateWarning } from '@floodgate/core';
import { contextOf } from './keys/context';

const ctx = contextOf({ ip: '203.0.113.7' });
const lookalikes: [string, unknown, string][] = [
  ['{ decide() {} }', { decide() {} }, 'its kind is undefined'],
  ['an unknown kind', { ...fixedWindow({ limit: 2, window: '1m' }), kind: 'bogus' }, 'its kind is "bogus"'],
  ['no refund()', { ...fixedWindow({ limit: 2, window: '1m' }), refund: undefined }, 'it has no refund() method'],
  ['no maxCost', { ...fixedWindow({ limit: 2, window: '1m' }), maxCost: undefined }, 'its maxCost is undefined'],
  ['a fractional reserve', { ...fixedWindow({ limit: 2, window: '1m' }), reserve: 0.5 }, 'its reserve is 0.5'],
];

describe('issue 19.7: an algorithm is checked the same way wherever it is given', () => {
  it.each(lookalikes)('a rule with %s is refused at construction', (_, algorithm, problem) => {
    const build = () =>
      createLimiter({ limits: [{ name: 'ip', key: (c) => c.ip, algorithm: algorithm as Algorithm }] });
    expect(build).toThrow(`(${problem})`);
    expect(build).toThrow(expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION' }));
    expect(() => layered({ ip: algorithm as Algorithm })).toThrow('layered.ip');
  });

  it.each(lookalikes)(
    'an algorithm function returning %s rejects consume, reported once',
    async (_, returned, problem) => {
      const warnings: FloodgateWarning[] = [];
      const limiter = createLimiter({
        limits: [{ name: 'tenant', key: (c) => c.ip, algorithm: () => returned as Algorithm }],
        onWarning: (warning) => warnings.push(warning),
      });
      for (let i = 0; i < 3; i++) {
        await expect(limiter.consume(ctx)).rejects.toMatchObject({
          code: 'ERR_FLOODGATE_ALGORITHM_FUNCTION',
          message: expect.stringContaining(`which is not an algorithm: ${problem}`),
        });
      }
      expect(warnings.map((warning) => warning.code)).toEqual(['WARN_FLOODGATE_ALGORITHM_FUNCTION_FAILED']);
    },
  );

  it("an algorithm function that never settles rejects consume once the limiter's timeout has passed", async () => {
    const limiter = createLimiter({
      limits: [{ name: 'tenant', key: (c) => c.ip, algorithm: () => new Promise<Algorithm>(() => {}) }],
      timeout: 20,
      onWarning: () => {},
    });
    await expect(limiter.consume(ctx)).rejects.toMatchObject({
      code: 'ERR_FLOODGATE_ALGORITHM_FUNCTION',
      message: 'the algorithm function of rule "tenant" did not settle within 20 ms (the limiter\'s timeout)',
    });
  });
});
