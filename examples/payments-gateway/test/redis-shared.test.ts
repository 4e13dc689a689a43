import { describe, expect, it } from 'vitest';
import type { DecisionEvent } from '@floodgate/fastify';
import { contextOf } from '../../../test/helpers/context.ts';
import { merchantTable } from '../src/merchants.js';
import { frozen } from './support/gateway.ts';
import { call, KEYS, outcomeOf } from './support/client.ts';
import { type RedisGateway, useRedisParts } from './support/redis.ts';
import { slowLimits } from './support/slow-limits.ts';

const parts = useRedisParts();

/** Sends `n` calls at once, alternating between two gateways; their outcomes. */
async function spread(n: number, bases: readonly [string, string], path: string, keyOf: (i: number) => string) {
  const responses = await Promise.all(
    Array.from({ length: n }, (_, i) => call(bases[i % 2] as string, 'POST', path, keyOf(i))),
  );
  return Promise.all(responses.map(outcomeOf));
}

/** Two gateways on one Redis, recording every decision (to check that Redis made each one). */
async function twoGateways(url: string, merchants = merchantTable()) {
  const decisions: DecisionEvent[] = [];
  const options = {
    merchants,
    limits: slowLimits(),
    instances: 2,
    // Leases end after 500 ms of the limiter's clock: frozen, they last the whole test.
    clock: frozen,
    hooks: { onDecision: (event: DecisionEvent) => decisions.push(event) },
  };
  const a = await parts.patientGateway(url, options);
  const b = await parts.patientGateway(url, options);
  return { a, b, decisions, options };
}

describe('two gateways sharing one Redis', () => {
  it("admit a merchant's tier exactly once between them, however the requests are spread", async () => {
    const redis = await parts.redis();
    const { a, b, decisions } = await twoGateways(redis.url);

    const outcomes = await spread(30, [a.base, b.base], '/v1/charges', () => KEYS.starter);
    expect(outcomes.filter((o) => o.status === 200)).toHaveLength(20);
    expect(outcomes.filter((o) => o.status !== 200)).toEqual(
      new Array(10).fill({ status: 429, violated: ['merchant'] }),
    );
    for (const gateway of [a, b]) {
      expect((await call(gateway.base, 'POST', '/v1/charges', KEYS.starter)).status).toBe(429);
    }
    expect(decisions.filter((event) => event.decision.degraded)).toEqual([]);
  });

  it('never admit more than the 400 new charges the leased processor ceiling allows', async () => {
    const redis = await parts.redis();
    const { a, b, decisions } = await twoGateways(redis.url, bigMerchants());

    // 500 charges at once, half on each gateway, from four merchants with 300 each to spend.
    const outcomes = await spread(500, [a.base, b.base], '/v1/charges', (i) => `sk_test_m${(i % 4) + 1}`);
    expect(decisions.filter((event) => event.decision.degraded)).toEqual([]);
    const admitted = outcomes.filter((o) => o.status === 200).length;
    // Each gateway hands out its leased units itself; up to 10 may be left in each pool.
    expect(admitted).toBeLessThanOrEqual(400);
    expect(admitted).toBeGreaterThanOrEqual(380);
    expect(outcomes.filter((o) => o.status !== 200)).toEqual(
      new Array(500 - admitted).fill({ status: 429, violated: ['processor'] }),
    );
  });

  it('hold at most one lease of unused units each, and give it back when they close', async () => {
    const redis = await parts.redis();
    const { a, b, options } = await twoGateways(redis.url, bigMerchants());
    const observer = await parts.patientGateway(redis.url, options);

    // 13 charges on one gateway and 12 on the other, one after another: each takes two leases of
    // 10, and leaves 7 and 8 units unused.
    for (let i = 0; i < 25; i++) {
      expect((await call(i % 2 === 0 ? a.base : b.base, 'POST', '/v1/charges', 'sk_test_m1')).status).toBe(200);
    }
    expect(await processorLeft(observer)).toBe(500 - 40);
    await a.app.close();
    await b.app.close();
    expect(await processorLeft(observer)).toBe(500 - 25);
  });
});

/** Four enterprise merchants, 300 each to spend. */
function bigMerchants() {
  return merchantTable(
    ['m1', 'm2', 'm3', 'm4'].map((id) => ({ apiKey: `sk_test_${id}`, id, tier: 'enterprise' as const })),
  );
}

/** What Redis holds of the processor ceiling now, as seen by a capture (which may use the reserve). */
async function processorLeft(gateway: RedisGateway): Promise<number> {
  const capture = contextOf({
    req: { merchant: { id: 'm1', tier: 'enterprise' }, routeOptions: { config: { processor: 'critical' } } },
  });
  const peek = await gateway.app.floodgate.limiter.peek(capture as never);
  expect(peek.degraded).toBe(false);
  // A peek answers as if for one more call: add it back.
  return (peek.results.find((layer) => layer.rule === 'processor')?.remaining ?? Number.NaN) + 1;
}
