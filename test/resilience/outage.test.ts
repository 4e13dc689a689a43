import { describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow, StoreTimeoutError, type BreakerChange, type Decision } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { freePort } from '../helpers/ports.ts';
import { commandCalls, ctxFor, freshPrefix, ready, usePerTestParts, windowStartClock } from './support.ts';

const parts = usePerTestParts();

const perMinute = (limit: number) => fixedWindow({ limit, window: 60_000 });
const rules = (limit: number) => [
  { name: 'ip', key: (c: { ip: string | undefined }) => c.ip, algorithm: perMinute(limit) },
];

async function consumeMany(
  limiter: { consume: (ctx: ReturnType<typeof ctxFor>) => Promise<Decision> },
  ip: string,
  n: number,
) {
  const decisions: Decision[] = [];
  for (let i = 0; i < n; i++) decisions.push(await limiter.consume(ctxFor(ip)));
  return decisions;
}

describe('limiter over a RedisStore that is out of reach', () => {
  it('decides locally with limits divided by instances, opens the breaker, then goes back to Redis and drops the local state', async () => {
    const port = await freePort();
    const client = parts.client(port);
    const now = 1_000_000;
    const errors: unknown[] = [];
    const changes: string[] = [];
    const limiter = createLimiter({
      store: new RedisStore({ client, clock: windowStartClock() }),
      prefix: freshPrefix('outage'),
      clock: () => now,
      instances: 2,
      breaker: { failureThreshold: 5, failureWindow: 10_000, cooldown: 1000 },
      // Off, so that the denied key is asked of the store again after the second outage begins.
      denyCache: false,
      onStoreError: ({ error }) => errors.push(error),
      onBreakerChange: (change: BreakerChange) => changes.push(`${change.from}->${change.to}`),
      limits: rules(10),
    });

    const outage = await consumeMany(limiter, '203.0.113.7', 20);
    expect(outage.every((decision) => decision.degraded)).toBe(true);
    expect(outage.filter((decision) => decision.allowed)).toHaveLength(5);
    expect(outage[19]).toMatchObject({ allowed: false, limit: 5, retryAfter: 20_000 });
    expect(errors).toHaveLength(5);
    expect(changes).toEqual(['closed->open']);

    // The client reconnects: the next request probes Redis without waiting out the breaker (the
    // limiter's clock does not move).
    const server = await parts.redis({ port });
    await ready(client);
    const back = await consumeMany(limiter, '203.0.113.7', 11);
    expect(changes).toEqual(['closed->open', 'open->half-open', 'half-open->closed']);
    expect(back.map((decision) => decision.degraded)).toEqual(new Array(11).fill(false));
    expect(back.map((decision) => decision.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
    expect(back[10]).toMatchObject({ allowed: false, limit: 10 });
    expect(errors).toHaveLength(5);

    // The local counts of the first outage were dropped: a second one starts from a fresh share.
    await server.kill();
    const again = await consumeMany(limiter, '203.0.113.7', 6);
    expect(again.every((decision) => decision.degraded)).toBe(true);
    expect(again.filter((decision) => decision.allowed)).toHaveLength(5);
  });

  it('keeps deciding when onStoreError and onBreakerChange throw', async () => {
    const port = await freePort();
    const thrown: string[] = [];
    const warn = console.warn;
    console.warn = () => {};
    try {
      const limiter = createLimiter({
        store: new RedisStore({ client: parts.client(port) }),
        limits: rules(3),
        onStoreError: () => {
          thrown.push('store');
          throw new Error('metrics down');
        },
        onBreakerChange: async () => {
          thrown.push('breaker');
          throw new Error('metrics down');
        },
      });
      const decisions = await consumeMany(limiter, '198.51.100.2', 6);
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false, false]);
      expect(decisions.every((d) => d.degraded)).toBe(true);
      expect(thrown).toEqual(['store', 'store', 'store', 'store', 'store', 'breaker']);
    } finally {
      console.warn = warn;
    }
  });

  it('a probe that fails doubles the wait; the client reconnecting ends the wait at once (issue 19, item 14)', async () => {
    const port = await freePort();
    const client = parts.client(port);
    let now = 2_000_000;
    const changes: string[] = [];
    const limiter = createLimiter({
      store: new RedisStore({ client, clock: windowStartClock() }),
      prefix: freshPrefix('probe'),
      clock: () => now,
      breaker: { failureThreshold: 5, failureWindow: 10_000, cooldown: 30_000 },
      onBreakerChange: (change: BreakerChange) => changes.push(`${change.from}->${change.to}`),
      limits: rules(10),
    });
    await consumeMany(limiter, '203.0.113.8', 5);
    expect(changes).toEqual(['closed->open']);
    // Half of probeInterval (1 s): no probe yet. After all of it: one, which finds no Redis.
    now += 499;
    expect((await limiter.consume(ctxFor('203.0.113.8'))).degraded).toBe(true);
    expect(changes).toEqual(['closed->open']);
    now += 501;
    expect((await limiter.consume(ctxFor('203.0.113.8'))).degraded).toBe(true);
    expect(changes).toEqual(['closed->open', 'open->half-open', 'half-open->open']);
    // The next wait is 1 to 2 s, not the 30 s cooldown.
    now += 999;
    expect((await limiter.consume(ctxFor('203.0.113.8'))).degraded).toBe(true);
    expect(changes).toHaveLength(3);
    // Redis is back and the client ready: the next request probes, though the wait is not over.
    await parts.redis({ port });
    await ready(client);
    const back = await consumeMany(limiter, '203.0.113.8', 2);
    expect(back.map((decision) => decision.degraded)).toEqual([false, false]);
    expect(changes).toEqual([
      'closed->open',
      'open->half-open',
      'half-open->open',
      'open->half-open',
      'half-open->closed',
    ]);
  });

  it("failMode 'closed' refuses as unavailable with a Retry-After, 'open' allows; both degraded", async () => {
    const port = await freePort();
    const closed = createLimiter({
      store: new RedisStore({ client: parts.client(port) }),
      failMode: 'closed',
      breaker: { cooldown: '5 s', probeInterval: '5 s' },
      limits: rules(10),
    });
    const refused = await consumeMany(closed, '198.51.100.1', 8);
    expect(refused.every((d) => !d.allowed && d.unavailable === true && d.degraded)).toBe(true);
    expect(refused[0]?.retryAfter).toBe(1000);
    // Until the breaker's next probe: 2.5 to 5 s (its wait is drawn between half and all of it).
    expect(refused[7]?.retryAfter).toBeGreaterThan(2000);
    expect(refused[7]?.retryAfter).toBeLessThanOrEqual(5000);

    const open = createLimiter({
      store: new RedisStore({ client: parts.client(port) }),
      failMode: 'open',
      limits: rules(1),
    });
    const allowed = await consumeMany(open, '198.51.100.1', 8);
    expect(allowed.every((d) => d.allowed && d.degraded && d.unavailable === undefined)).toBe(true);
  });

  it('bounds every call by the deadline when the server is frozen (SIGSTOP); timeouts open the breaker', async () => {
    const server = await parts.redis();
    const client = parts.client(server.port, { commandTimeout: 5000 });
    await ready(client);
    const errors: unknown[] = [];
    const changes: string[] = [];
    const limiter = createLimiter({
      store: new RedisStore({ client }),
      prefix: freshPrefix('frozen'),
      timeout: 100,
      onStoreError: ({ error }) => errors.push(error),
      onBreakerChange: ({ to }) => changes.push(to),
      limits: rules(100),
    });
    expect((await limiter.consume(ctxFor('192.0.2.1'))).degraded).toBe(false);
    server.signal('SIGSTOP');
    parts.defer(() => server.signal('SIGCONT'));
    const latencies: number[] = [];
    const decisions: Decision[] = [];
    for (let i = 0; i < 8; i++) {
      const started = performance.now();
      decisions.push(await limiter.consume(ctxFor('192.0.2.1')));
      latencies.push(performance.now() - started);
    }
    expect(decisions.every((d) => d.degraded && d.allowed)).toBe(true);
    expect(Math.max(...latencies)).toBeLessThanOrEqual(150);
    expect(latencies.slice(5).every((ms) => ms < 20)).toBe(true);
    expect(errors).toHaveLength(5);
    expect(errors.every((error) => error instanceof StoreTimeoutError)).toBe(true);
    expect(changes).toEqual(['open']);
  });

  it('bounds calls during CLIENT PAUSE', async () => {
    const server = await parts.redis();
    const client = parts.client(server.port, { commandTimeout: 5000 });
    await ready(client);
    const limiter = createLimiter({
      store: new RedisStore({ client }),
      prefix: freshPrefix('pause'),
      limits: rules(100),
    });
    expect((await limiter.consume(ctxFor('192.0.2.2'))).degraded).toBe(false);
    const admin = parts.client(server.port);
    await ready(admin);
    await admin.call('CLIENT', 'PAUSE', 1000, 'ALL');
    const started = performance.now();
    const decision = await limiter.consume(ctxFor('192.0.2.2'));
    expect(performance.now() - started).toBeLessThanOrEqual(150);
    expect(decision.degraded).toBe(true);
  });
});

describe('local deny cache', () => {
  it('answers a flood from one denied client without calling Redis', async () => {
    const server = await parts.redis();
    const client = parts.client(server.port);
    await ready(client);
    const run = async (denyCache: boolean) => {
      const limiter = createLimiter({
        store: new RedisStore({ client, clock: windowStartClock() }),
        prefix: freshPrefix('deny'),
        denyCache,
        // What is counted is calls, not time: a deadline missed on a busy machine would send a
        // decision to the fallback, which is not what this compares.
        timeout: 10_000,
        limits: rules(3),
      });
      await limiter.consume(ctxFor('warm-up')); // loads the script, so every later call is one EVALSHA
      const before = await commandCalls(server.port);
      const decisions = await consumeMany(limiter, '203.0.113.9', 200);
      const calls = (await commandCalls(server.port)) - before;
      return { calls, decisions };
    };
    const cached = await run(true);
    expect(cached.decisions.filter((d) => d.allowed)).toHaveLength(3);
    expect(cached.decisions.some((d) => d.degraded)).toBe(false);
    expect(cached.decisions[199]).toMatchObject({ allowed: false, remaining: 0, limit: 3 });
    expect(cached.calls).toBe(4);
    const uncached = await run(false);
    expect(uncached.decisions.filter((d) => d.allowed)).toHaveLength(3);
    expect(uncached.calls).toBe(200);
  });
});
