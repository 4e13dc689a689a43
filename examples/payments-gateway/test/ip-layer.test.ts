import { describe, expect, it } from 'vitest';
import { call, countOf, KEYS, outcomeOf, statusesOf } from './support/client.ts';
import { useGateways } from './support/gateway.ts';

const start = useGateways();

describe('requests without a known API key (memory store, frozen clock)', () => {
  it('are counted per IP, 20 a minute, and get their 401 only after the limiter', async () => {
    const { base } = await start();
    const first = await call(base, 'POST', '/v1/charges', 'sk_test_guess_1');
    expect(first.status).toBe(401);
    expect(first.headers.get('ratelimit-policy')).toBe('"ip";q=20;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"ip";r=19;t=\d+$/);

    const guesses = await statusesOf(19, () => call(base, 'POST', '/v1/charges', `sk_test_guess_${Math.random()}`));
    expect(countOf(guesses, 401)).toBe(19);
    const blocked = await call(base, 'POST', '/v1/charges', 'sk_test_guess_21');
    expect(blocked.headers.get('retry-after')).toBe('600');
    expect(await outcomeOf(blocked)).toEqual({ status: 429, violated: ['ip'] });
    // No key at all is the same client: still blocked.
    expect((await call(base, 'GET', '/v1/balance')).status).toBe(429);
  });

  it('never apply to a merchant, and never spend the processor ceiling', async () => {
    const { base } = await start();
    await statusesOf(25, () => call(base, 'POST', '/v1/charges', 'sk_test_unknown'));
    // Same address, known key: only the merchant's and the processor's layers count.
    const charge = await call(base, 'POST', '/v1/charges', KEYS.starter);
    expect(charge.status).toBe(200);
    expect(charge.headers.get('ratelimit-policy')).toBe('"merchant";q=20;w=4, "processor";q=500;w=2');
    // 500 less the reserve of 100, less this charge: the 25 unknown-key calls took nothing.
    expect(charge.headers.get('ratelimit')).toMatch(/^"merchant";r=19;t=1, "processor";r=399;t=\d+$/);
  });
});
