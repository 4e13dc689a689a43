import { describe, expect, it } from 'vitest';
import { call, KEYS, outcomeOf } from './support/client.ts';
import { eventLog } from './support/events.ts';
import { ready, useRedisParts } from './support/redis.ts';

const parts = useRedisParts();

/** `n` charges by the starter merchant, one after another; their outcomes. */
async function charges(base: string, n: number) {
  const outcomes = [];
  for (let i = 0; i < n; i++) outcomes.push(await outcomeOf(await call(base, 'POST', '/v1/charges', KEYS.starter)));
  return outcomes;
}

/**
 * Charges until Redis decides one. The first call to a Redis also loads the scripts, and on a busy
 * machine may miss the 50 ms deadline (it is then decided locally, as it should be).
 */
async function untilRedisDecides(base: string, log: ReturnType<typeof eventLog>, before: () => void = () => {}) {
  for (let attempt = 0; attempt < 5; attempt++) {
    before();
    const response = await call(base, 'POST', '/v1/charges', KEYS.starter);
    if (log.decisions.at(-1)?.decision.degraded === false) return response;
    await response.arrayBuffer();
  }
  throw new Error('Redis decided none of 5 charges');
}

const ok = { status: 200 };
const tooMany = { status: 429, violated: ['merchant'] };

describe('a gateway whose Redis goes away', () => {
  it('keeps answering from its own share of each limit, then lets Redis decide again once it is back', async () => {
    const redis = await parts.redis();
    // The limiter's clock drives the breaker and the local fallback: it moves only when told.
    let now = 1_700_000_000_000;
    const log = eventLog();
    const gateway = await parts.gateway(redis.url, { instances: 2, clock: () => now, hooks: log.hooks });
    await untilRedisDecides(gateway.base, log);

    await redis.kill();
    const during = log.decisions.length;
    // One of two instances: half the starter tier's 20, counted here from the first failed call.
    expect(await charges(gateway.base, 12)).toEqual([...new Array(10).fill(ok), tooMany, tooMany]);
    expect(log.degradedSince(during)).toEqual(new Array(12).fill(true));
    expect(log.changes).toEqual(['closed->open']);
    const metrics = await (await fetch(`${gateway.base}/metrics`)).text();
    expect(metrics).toContain('floodgate_decisions_total{rule="merchant",outcome="allowed",degraded="true"} 10');
    expect(metrics).toContain('floodgate_decisions_total{rule="merchant",outcome="denied",degraded="true"} 2');
    expect(metrics).toContain('floodgate_breaker_state{partition=""} 2');

    await redis.start();
    await ready(gateway.client);
    // The first probe comes after the 5 s cooldown, the next ones a second apart: a restarted Redis
    // must load the scripts again, which can take one probe past the deadline.
    let probes = 0;
    const back = await untilRedisDecides(gateway.base, log, () => {
      now += probes++ === 0 ? 5000 : 1000;
    });
    expect(back.status).toBe(200);
    // Redis kept nothing: the merchant's count starts again there.
    expect(back.headers.get('ratelimit')).toMatch(/^"merchant";r=19;/);
    expect(log.changes.slice(0, 2)).toEqual(['closed->open', 'open->half-open']);
    expect(log.changes.at(-1)).toBe('half-open->closed');
  }, 20_000);

  it('cuts each call to a Redis that stops answering at the 50 ms deadline, and stops calling once the breaker opens', async () => {
    const redis = await parts.redis();
    const log = eventLog();
    const gateway = await parts.gateway(redis.url, { clock: () => 1_700_000_000_000, hooks: log.hooks });
    await untilRedisDecides(gateway.base, log);
    const [decisions, errors, calls] = [log.decisions.length, log.errors.length, log.storeCalls.length];

    redis.signal('SIGSTOP');
    parts.defer(() => redis.signal('SIGCONT'));
    expect(await charges(gateway.base, 6)).toEqual(new Array(6).fill(ok));
    expect(log.degradedSince(decisions)).toEqual(new Array(6).fill(true));
    // Three calls timed out and opened the breaker; the other three never went out. What cut them is
    // the limiter's 50 ms deadline or, when the machine is too busy to run the two timers apart,
    // the client's 100 ms command timeout.
    expect(log.errors.slice(errors).map(String)).toEqual(
      new Array(3).fill(expect.stringMatching(/did not settle within 50 ms|Command timed out/)),
    );
    expect(log.storeCalls.slice(calls).map((event) => event.ok)).toEqual([false, false, false]);
    expect(log.changes).toEqual(['closed->open']);
  }, 20_000);
});
