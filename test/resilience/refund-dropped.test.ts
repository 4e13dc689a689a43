import { describe, expect, it } from 'vitest';
import type { FailMode, StoreErrorEvent } from '@floodgate/core';
import { ctxFor, freshPrefix, ipLimiter, ready, usePerTestParts } from './support.ts';

/** Catalogue C34: a refund dropped during an outage is reported, once per refund, to onStoreError. */
const parts = usePerTestParts();

describe('a refund dropped while the breaker is open is counted (catalogue C34)', () => {
  it.each(['open', 'closed'] as FailMode[])("failMode '%s': onStoreError sees the dropped refund", async (failMode) => {
    const server = await parts.redis();
    const client = parts.client(server.port, { commandTimeout: 10_000 });
    await ready(client);
    const errors: StoreErrorEvent[] = [];
    const limiter = ipLimiter(client, freshPrefix('dropped'), {
      limit: 10,
      clock: () => 7_000_000,
      failMode,
      breaker: { failureThreshold: 5, cooldown: 60_000, probeInterval: 60_000 },
      onStoreError: (event) => errors.push(event),
    });
    const charged = ctxFor('192.0.2.1');
    await limiter.consume(charged);
    server.signal('SIGSTOP');
    for (let i = 0; i < 5; i++) await limiter.consume(ctxFor('192.0.2.2'));
    await limiter.refund(charged);
    server.signal('SIGCONT');
    expect(errors.map((event) => event.operation)).toEqual([...new Array(5).fill('consume'), 'refund']);
    expect(String(errors[5]?.error)).toMatch(/a refund was dropped, not sent: the store is out of reach/);
  });
});
