import { describe, expect, it } from 'vitest';
import { merchantTable } from '../src/merchants.js';
import { call, countOf, KEYS, outcomeOf, statusesOf } from './support/client.ts';
import { useGateways } from './support/gateway.ts';

const start = useGateways();

describe('merchant tiers (memory store, frozen clock)', () => {
  it.each([
    { tier: 'starter', key: KEYS.starter, burst: 20, refill: 4 },
    { tier: 'growth', key: KEYS.growth, burst: 100, refill: 4 },
    { tier: 'enterprise', key: KEYS.enterprise, burst: 300, refill: 3 },
  ])(
    'the $tier tier admits exactly its burst of $burst, then 429 from the merchant layer',
    async ({ key, burst, refill }) => {
      const { base } = await start();
      const statuses = await statusesOf(burst, () => call(base, 'POST', '/v1/charges', key));
      expect(countOf(statuses, 200)).toBe(burst);
      const denied = await call(base, 'POST', '/v1/charges', key);
      expect(denied.headers.get('ratelimit-policy')).toBe(`"merchant";q=${burst};w=${refill}, "processor";q=500;w=2`);
      expect(denied.headers.get('ratelimit')).toMatch(/^"merchant";r=0;t=1, "processor";r=\d+;t=\d+$/);
      expect(await outcomeOf(denied)).toEqual({ status: 429, violated: ['merchant'] });
    },
  );

  it('counts a merchant under its new tier from the next request on', async () => {
    const merchants = merchantTable();
    const { base } = await start({ merchants });
    expect(countOf(await statusesOf(21, () => call(base, 'POST', '/v1/charges', KEYS.starter)), 200)).toBe(20);

    merchants.setTier('corner-cafe', 'growth');
    const upgraded = await call(base, 'POST', '/v1/charges', KEYS.starter);
    expect(upgraded.status).toBe(200);
    expect(upgraded.headers.get('ratelimit')).toMatch(/^"merchant";r=99;/);

    // Each tier keeps its own count: the starter bucket is as empty as it was left.
    merchants.setTier('corner-cafe', 'starter');
    expect(await outcomeOf(await call(base, 'POST', '/v1/charges', KEYS.starter))).toEqual({
      status: 429,
      violated: ['merchant'],
    });
  });

  it('keeps each merchant to its own bucket', async () => {
    const { base } = await start();
    await statusesOf(20, () => call(base, 'POST', '/v1/charges', KEYS.starter));
    expect((await call(base, 'POST', '/v1/charges', KEYS.starter)).status).toBe(429);
    const other = await call(base, 'POST', '/v1/charges', KEYS.growth);
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit')).toMatch(/^"merchant";r=99;/);
  });

  it('limits read routes by tier too, without the processor layer', async () => {
    const { base } = await start();
    const balance = await call(base, 'GET', '/v1/balance', KEYS.starter);
    expect(balance.status).toBe(200);
    expect(balance.headers.get('ratelimit-policy')).toBe('"merchant";q=20;w=4');
  });
});
