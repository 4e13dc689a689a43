import { describe, expect, it } from 'vitest';
import { call, KEYS, statusesOf } from './support/client.ts';
import { frozen, useGateways } from './support/gateway.ts';

const start = useGateways();

describe('the status route (memory store, frozen clock)', () => {
  it("answers a merchant's standing under its tier, charging nothing", async () => {
    const { base } = await start();
    await statusesOf(3, () => call(base, 'POST', '/v1/charges', KEYS.starter));
    // Three of 20 spent at 5 per second: full again in 600 ms.
    const expected = {
      resources: { merchant: { limit: 20, remaining: 17, used: 3, reset: Math.ceil((frozen() + 600) / 1000) } },
    };
    for (let i = 0; i < 3; i++) {
      const status = await call(base, 'GET', '/v1/rate_limit', KEYS.starter);
      expect(status.status).toBe(200);
      expect(status.headers.get('cache-control')).toBe('no-store');
      expect(await status.json()).toEqual(expected);
    }
  });

  it('answers an anonymous caller with its IP budget, and still answers once that is spent', async () => {
    const { base } = await start();
    await statusesOf(21, () => call(base, 'GET', '/v1/balance'));
    const status = await call(base, 'GET', '/v1/rate_limit');
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ resources: { ip: { limit: 20, remaining: 0, used: 20 } } });
  });
});

describe('the metrics route (memory store, frozen clock)', () => {
  it('counts every layer verdict, and is never limited', async () => {
    const { base } = await start();
    await statusesOf(21, () => call(base, 'POST', '/v1/charges', KEYS.starter));
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('ratelimit')).toBeNull();
    const text = await metrics.text();
    expect(text).toContain('floodgate_decisions_total{rule="merchant",outcome="allowed",degraded="false"} 20');
    expect(text).toContain('floodgate_decisions_total{rule="merchant",outcome="denied",degraded="false"} 1');
    // The denied request's processor layer allowed it (only the merchant layer refused).
    expect(text).toContain('floodgate_decisions_total{rule="processor",outcome="allowed",degraded="false"} 21');
  });
});
