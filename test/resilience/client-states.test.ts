import { describe, expect, it } from 'vitest';
import type { Decision } from '@floodgate/core';
import {
  adminCommand,
  chargedInRedis,
  ipLimiterKey,
  ctxFor,
  freshPrefix,
  ipLimiter,
  ready,
  timed,
  usePerTestParts,
} from './support.ts';

const { redis: server, client, defer } = usePerTestParts();

describe('RedisStore client states (reliability.md catalogue A)', () => {
  it('A15: a client closed for good (quit) gives immediate degraded decisions', async () => {
    const redis = client((await server()).port);
    await ready(redis);
    const limiter = ipLimiter(redis, freshPrefix('quit'));
    expect((await limiter.consume(ctxFor('a'))).degraded).toBe(false);
    await redis.quit();
    for (let i = 0; i < 10; i++) {
      const { decision, ms } = await timed(() => limiter.consume(ctxFor('a')));
      expect(decision).toMatchObject({ degraded: true, allowed: true });
      expect(ms).toBeLessThan(50);
    }
  });

  it('A15: a client whose retryStrategy gives up (status end) gives immediate degraded decisions', async () => {
    const redisServer = await server();
    const redis = client(redisServer.port, { retryStrategy: () => null });
    await ready(redis);
    const limiter = ipLimiter(redis, freshPrefix('gave-up'));
    expect((await limiter.consume(ctxFor('a'))).degraded).toBe(false);
    const ended = new Promise((resolve) => redis.once('end', resolve));
    await redisServer.kill();
    await ended;
    expect(redis.status).toBe('end');
    for (let i = 0; i < 10; i++) {
      const { decision, ms } = await timed(() => limiter.consume(ctxFor('a')));
      expect(decision).toMatchObject({ degraded: true, allowed: true });
      expect(ms).toBeLessThan(50);
    }
  });

  it('A16: a request in the same tick as start-up is decided (degraded), then Redis decides once ready', async () => {
    const redis = client((await server()).port);
    const limiter = ipLimiter(redis, freshPrefix('start'));
    const first = await limiter.consume(ctxFor('a'));
    expect(first.degraded).toBe(true);
    await ready(redis);
    expect((await limiter.consume(ctxFor('a'))).degraded).toBe(false);
  });

  it('A16 (lazyConnect): the first request starts the connection and is decided locally; Redis decides once ready', async () => {
    const redis = client((await server()).port, { lazyConnect: true });
    const limiter = ipLimiter(redis, freshPrefix('lazy'));
    expect(redis.status).toBe('wait');
    const { decision, ms } = await timed(() => limiter.consume(ctxFor('a')));
    expect(decision).toMatchObject({ degraded: true, allowed: true });
    expect(ms).toBeLessThan(150);
    await ready(redis);
    expect(await limiter.consume(ctxFor('a'))).toMatchObject({ degraded: false, remaining: 999 });
  });

  it('A9: Redis restarted between two requests: the next one is answered (never an error), counting starts again', async () => {
    const restarted = await server();
    const redis = client(restarted.port);
    await ready(redis);
    const limiter = ipLimiter(redis, freshPrefix('restart'));
    expect((await limiter.consume(ctxFor('a'))).remaining).toBe(999);
    await restarted.kill();
    await restarted.start();
    const next = await limiter.consume(ctxFor('a'));
    expect(next.allowed).toBe(true);
    await ready(redis);
    const fromRedis = await limiter.consume(ctxFor('a'));
    expect(fromRedis).toMatchObject({ degraded: false, remaining: next.degraded ? 999 : 998 });
  });

  it('A11: a demoted primary (READONLY) fails fast into the fallback and opens the breaker', async () => {
    const [primary, other] = [await server(), await server()];
    const redis = client(primary.port);
    await ready(redis);
    const changes: string[] = [];
    const errors: unknown[] = [];
    const limiter = ipLimiter(redis, freshPrefix('readonly'), {
      onBreakerChange: ({ to }: { to: string }) => changes.push(to),
      onStoreError: ({ error }: { error: unknown }) => errors.push(error),
    });
    expect((await limiter.consume(ctxFor('a'))).degraded).toBe(false);
    await adminCommand(primary.port, 'REPLICAOF', '127.0.0.1', other.port);
    defer(() => adminCommand(primary.port, 'REPLICAOF', 'NO', 'ONE'));
    for (let i = 0; i < 8; i++) {
      const { decision, ms } = await timed(() => limiter.consume(ctxFor('a')));
      expect(decision.degraded).toBe(true);
      expect(ms).toBeLessThan(150);
    }
    expect(errors).toHaveLength(5);
    expect(String(errors[0])).toMatch(/READONLY/);
    expect(changes).toEqual(['open']);
  });

  it('A18: a 300 ms stall of the app with 50 calls in flight: one decision each, from Redis', async () => {
    const redis = client((await server()).port);
    await ready(redis);
    const limiter = ipLimiter(redis, freshPrefix('stall'));
    await limiter.consume(ctxFor('warm-up'));
    const pending = Array.from({ length: 50 }, (_, i) => limiter.consume(ctxFor(`10.0.0.${i}`)));
    // The store sends the turn's calls once the turn's microtasks have run: let that happen, so the
    // 50 calls are on the wire (in flight) when the app stalls.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const until = performance.now() + 300;
    while (performance.now() < until) {
      // Busy: the replies arrive while the event loop cannot run, and the deadline is long past.
    }
    const decisions = await Promise.all(pending);
    expect(decisions).toHaveLength(50);
    expect(decisions.filter((d) => d.degraded)).toEqual([]);
  });

  it('A5 (frozen variant): calls on the wire when Redis froze run at most once after SIGCONT, and no more arrive', async () => {
    const frozen = await server();
    const redis = client(frozen.port, { commandTimeout: 10_000 });
    await ready(redis);
    const prefix = freshPrefix('frozen-ghost');
    const limiter = ipLimiter(redis, prefix, {
      breaker: { failureThreshold: 5, cooldown: 60_000, probeInterval: 60_000 },
    });
    await limiter.consume(ctxFor('warm-up'));
    frozen.signal('SIGSTOP');
    const decisions: Decision[] = [];
    for (let i = 0; i < 20; i++) decisions.push(await limiter.consume(ctxFor('ghost')));
    frozen.signal('SIGCONT');
    expect(decisions.every((d) => d.degraded)).toBe(true);
    // The five calls that timed out were already on the wire: Redis runs them when it resumes.
    await redis.ping();
    const charged = await chargedInRedis(frozen.port, prefix, 'ghost');
    const type = await adminCommand(frozen.port, 'TYPE', ipLimiterKey(prefix, 'ghost'));
    expect({ type, charged }).toEqual({ type: 'hash', charged: 5 });
  });
});
