import { describe, expect, it } from 'vitest';
import { merchantTable } from '../src/merchants.js';
import { call, countOf, outcomeOf, statusesOf } from './support/client.ts';
import { useGateways } from './support/gateway.ts';

const start = useGateways();

// Two big merchants to flood the processor ceiling (500, of which 100 are kept for captures and
// refunds), and a small one caught in the flood.
const merchants = () =>
  merchantTable([
    { apiKey: 'sk_test_megamart', id: 'megamart', tier: 'enterprise' },
    { apiKey: 'sk_test_hypermart', id: 'hypermart', tier: 'enterprise' },
    { apiKey: 'sk_test_corner_cafe', id: 'corner-cafe', tier: 'starter' },
  ]);

describe('the processor ceiling and its reserve (memory store, frozen clock)', () => {
  it('stops new charges at 400 and keeps the last 100 for captures and refunds', async () => {
    const { base } = await start({ merchants: merchants() });
    const charge = (key: string) => () => call(base, 'POST', '/v1/charges', key);

    expect(countOf(await statusesOf(300, charge('sk_test_megamart')), 200)).toBe(300);
    const second = await statusesOf(110, charge('sk_test_hypermart'));
    expect(countOf(second, 200)).toBe(100);
    expect(second.slice(100)).toEqual(new Array(10).fill(429));

    // A merchant with all of its own budget left is refused a charge: the ceiling is global...
    expect(await outcomeOf(await call(base, 'POST', '/v1/charges', 'sk_test_corner_cafe'))).toEqual({
      status: 429,
      violated: ['processor'],
    });
    // ...but captures and refunds still go through, on the reserve.
    const capture = await call(base, 'POST', '/v1/charges/ch_1/capture', 'sk_test_corner_cafe');
    expect(capture.status).toBe(200);
    expect(capture.headers.get('ratelimit')).toMatch(/^"merchant";r=19;t=\d+, "processor";r=99;t=\d+$/);
    expect((await call(base, 'POST', '/v1/refunds', 'sk_test_corner_cafe')).status).toBe(200);

    const settle = await statusesOf(100, () => call(base, 'POST', '/v1/charges/ch_2/capture', 'sk_test_hypermart'));
    expect(countOf(settle, 200)).toBe(98);
    expect(settle.slice(98)).toEqual([429, 429]);
    expect(await outcomeOf(await call(base, 'POST', '/v1/refunds', 'sk_test_corner_cafe'))).toEqual({
      status: 429,
      violated: ['processor'],
    });
  });

  it('lets captures use the whole ceiling when nothing else does', async () => {
    const { base } = await start({ merchants: merchants() });
    const captures = await statusesOf(301, () => call(base, 'POST', '/v1/charges/ch_3/capture', 'sk_test_megamart'));
    // The merchant's own 300 bind first here, not the processor's 500.
    expect(countOf(captures, 200)).toBe(300);
    const refunds = await statusesOf(201, () => call(base, 'POST', '/v1/refunds', 'sk_test_hypermart'));
    expect(countOf(refunds, 200)).toBe(200);
    expect(await outcomeOf(await call(base, 'POST', '/v1/refunds', 'sk_test_corner_cafe'))).toEqual({
      status: 429,
      violated: ['processor'],
    });
  });
});
