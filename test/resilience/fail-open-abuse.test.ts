import { describe, expect, it } from 'vitest';
import { byIp, createLimiter, fixedWindow } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { freePort } from '../helpers/ports.ts';
import { encodeIdentity } from '../../packages/core/src/keys/identity.ts';
import { keysUnder, limiterKey } from '../redis/fixtures/client.ts';
import { freshPrefix, ready, usePerTestParts, windowStartClock } from './support.ts';
import type { Decision, KeyContext, StoreErrorEvent } from '@floodgate/core';

/**
 * Catalogue E48: a client cannot escape its limit by rotating IPv6 addresses while Redis is down
 * (the local fallback groups them by /56 as Redis would), and a huge identity is no way to make the
 * store fail (and so to be waved through by the fallback).
 */

const parts = usePerTestParts();

const algorithm = fixedWindow({ limit: 10, window: '1m' });
const ipCtx = (ip: string): KeyContext => ({ ip, header: () => undefined, req: {} });
const hex = (n: number) => n.toString(16);

describe('IPv6 rotation and fail-open abuse (catalogue E48)', () => {
  it('rotating through 2,000 addresses of one /56 during an outage is limited as one client', async () => {
    const port = await freePort();
    const errors: StoreErrorEvent[] = [];
    const limiter = createLimiter({
      store: new RedisStore({ client: parts.client(port) }),
      prefix: freshPrefix('v6-rotation'),
      clock: () => 9_000_000,
      limits: [{ name: 'ip', key: byIp(), algorithm }],
      onStoreError: (event) => errors.push(event),
    });
    const decisions: Decision[] = [];
    // Every address differs in its last 72 bits; the first 56 are the client's allocation.
    for (let i = 0; i < 2000; i++) {
      decisions.push(
        await limiter.consume(ipCtx(`2001:db8:abcd:12${hex(i % 256).padStart(2, '0')}:${hex(i)}::${hex(i * 7)}`)),
      );
    }
    expect(decisions.every((decision) => decision.degraded)).toBe(true);
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
    expect(decisions.slice(0, 10).every((decision) => decision.allowed)).toBe(true);
    // Written with embedded dotted quads, the same allocation is still the same client.
    expect((await limiter.consume(ipCtx('2001:db8:abcd:12ff::1.2.3.4'))).allowed).toBe(false);

    // 2,000 other /56s each get their own share, and the spent one stays spent (the fallback keeps
    // 10,000 keys, so they do not push it out).
    const others: Decision[] = [];
    for (let i = 0; i < 2000; i++) others.push(await limiter.consume(ipCtx(`2001:db8:${hex(i + 1)}:100::1`)));
    expect(others.every((decision) => decision.allowed && decision.degraded)).toBe(true);
    expect((await limiter.consume(ipCtx('2001:db8:abcd:1234::99'))).allowed).toBe(false);
    // Five failures opened the breaker; then the store was not tried again.
    expect(errors).toHaveLength(5);
  });

  it('100 kB identities never make the store fail: decided by Redis under a bounded hashed key', async () => {
    const server = await parts.redis();
    const client = parts.client(server.port);
    await ready(client);
    const prefix = freshPrefix('big-ids');
    const errors: StoreErrorEvent[] = [];
    const limiter = createLimiter<string>({
      store: new RedisStore({ client, clock: windowStartClock() }),
      prefix,
      failMode: 'open',
      limits: [{ name: 'user', key: (ctx) => ctx.req, algorithm }],
      onStoreError: (event) => errors.push(event),
    });
    const big = (fill: string) => fill.repeat(100 * 1024);
    const ctx = (req: string): KeyContext<string> => ({ ip: '203.0.113.9', header: () => undefined, req });
    const same = big('a');
    const decisions: Decision[] = [];
    for (let i = 0; i < 12; i++) decisions.push(await limiter.consume(ctx(same)));
    // failMode 'open' would admit all 12 if the store failed: Redis decided, and stopped the 11th.
    expect(decisions.map((decision) => decision.allowed)).toEqual([...new Array(10).fill(true), false, false]);
    expect(decisions.some((decision) => decision.degraded)).toBe(false);
    // Many distinct huge identities, binary and brace-heavy ones among them.
    for (const fill of ['b', '{', '}', '\u0000', '\uD800', '😀', '\r\n']) {
      const decision = await limiter.consume(ctx(big(fill)));
      expect({ fill, allowed: decision.allowed, degraded: decision.degraded }).toEqual({
        fill,
        allowed: true,
        degraded: false,
      });
    }
    expect(errors).toEqual([]);
    const keys = await keysUnder(client, `${prefix}:`);
    expect(keys).toHaveLength(8);
    for (const key of keys) expect(key).toMatch(/\{~[A-Za-z0-9_-]{43}\}$/);
    expect(keys).toContain(limiterKey(prefix, 'user', algorithm, encodeIdentity(same)));
  });
});
