import { describe, expect, it } from 'vitest';
import type { BreakerChange, FailMode, StoreErrorEvent } from '@floodgate/core';
import {
  chargedInRedis,
  commandCalls,
  ctxFor,
  freshPrefix,
  ipLimiter,
  ready,
  usePerTestParts,
  windowStartClock,
} from './support.ts';

/**
 * Catalogue C34: a refund while the store is down is never queued for later. Redis is frozen
 * (SIGSTOP), so anything written to its socket would still run when it resumes and change the
 * count; once the breaker is open, a refund must not be written at all. It goes to the local
 * fallback (failMode 'local') or nowhere, and the caller is answered without waiting for Redis.
 */

const parts = usePerTestParts();

const FAIL_MODES: FailMode[] = ['local', 'open', 'closed'];

describe('a refund while the store is down (breaker open)', () => {
  it.each(FAIL_MODES)(
    "failMode '%s': resolves while Redis is still frozen, is never sent, and Redis' count is the same when it resumes",
    async (failMode) => {
      const server = await parts.redis();
      // A long command timeout: a call written to the frozen server stays pending, never cut off by ioredis.
      const client = parts.client(server.port, { commandTimeout: 10_000 });
      await ready(client);
      const prefix = freshPrefix(`refund-down-${failMode}`);
      const now = 5_000_000;
      const errors: StoreErrorEvent[] = [];
      const changes: string[] = [];
      const limiter = ipLimiter(client, prefix, {
        limit: 10,
        storeClock: windowStartClock(),
        clock: () => now,
        failMode,
        denyCache: false,
        breaker: { failureThreshold: 5, failureWindow: 10_000, cooldown: 60_000, probeInterval: 60_000 },
        onStoreError: (event) => errors.push(event),
        onBreakerChange: (change: BreakerChange) => changes.push(`${change.from}->${change.to}`),
      });

      // Three charges in Redis for the client whose refund will come during the outage.
      const charged = ctxFor('203.0.113.1');
      for (let i = 0; i < 3; i++) {
        const decision = await limiter.consume(charged);
        expect(decision).toMatchObject({ allowed: true, degraded: false });
      }
      expect(await chargedInRedis(server.port, prefix, '203.0.113.1', 10)).toBe(3);

      server.signal('SIGSTOP');
      // Another client's requests meet the frozen server: 5 deadlines open the breaker.
      for (let i = 0; i < 5; i++) expect((await limiter.consume(ctxFor('203.0.113.2'))).degraded).toBe(true);
      expect(changes).toEqual(['closed->open']);
      expect(errors.map((event) => event.operation)).toEqual(new Array(5).fill('consume'));

      // During the outage the charged client makes one request, decided locally, before the refund.
      const local = await limiter.consume(ctxFor('203.0.113.1'));
      expect(local.degraded).toBe(true);
      // Awaited while Redis is still frozen: the refund does not wait for it.
      await limiter.refund(charged);
      // Nothing was tried, so no store call failed: at most the dropped refund itself is reported.
      expect(errors.slice(5).every((event) => event.operation === 'refund')).toBe(true);
      if (failMode === 'local') {
        // The local share took the refund: the request made during the outage was given back.
        const after = await limiter.consume(ctxFor('203.0.113.1'));
        expect([local.remaining, after.remaining]).toEqual([9, 9]);
      }

      server.signal('SIGCONT');
      // Everything written to the connection before this PING has run once the PING is answered.
      await client.ping();
      // The five consumes on the wire when Redis froze ran (catalogue A5); nothing else did.
      expect(await chargedInRedis(server.port, prefix, '203.0.113.2', 10)).toBe(5);
      expect(await chargedInRedis(server.port, prefix, '203.0.113.1', 10)).toBe(3);
      expect(changes).toEqual(['closed->open']);
      expect(errors.filter((event) => event.operation === 'consume')).toHaveLength(5);
    },
  );

  it('the count of script calls shows it: the refund adds none, while Redis is frozen or after it resumes', async () => {
    const server = await parts.redis();
    const client = parts.client(server.port, { commandTimeout: 10_000 });
    await ready(client);
    const prefix = freshPrefix('refund-down-calls');
    const now = 6_000_000;
    const limiter = ipLimiter(client, prefix, {
      limit: 10,
      clock: () => now,
      denyCache: false,
      breaker: { failureThreshold: 5, failureWindow: 10_000, cooldown: 60_000, probeInterval: 60_000 },
      onStoreError: () => {},
    });
    const charged = ctxFor('198.51.100.1');
    await limiter.consume(charged);
    await limiter.consume(charged);
    const before = await commandCalls(server.port, ['evalsha', 'eval', 'fcall']);

    server.signal('SIGSTOP');
    for (let i = 0; i < 5; i++) await limiter.consume(ctxFor('198.51.100.2'));
    // Ten refunds, each of two units, for a client Redis holds 2 for.
    for (let i = 0; i < 10; i++) await limiter.refund(charged, { cost: 2 });
    server.signal('SIGCONT');
    await client.ping();

    // Exactly the five consumes that were on the wire; the admin connection's own INFO is no script.
    expect((await commandCalls(server.port, ['evalsha', 'eval', 'fcall'])) - before).toBe(5);
    expect(await chargedInRedis(server.port, prefix, '198.51.100.1', 10)).toBe(2);
  });
});
