import { describe, expect, it } from 'vitest';
import {
  byApiKey,
  byHeader,
  byIp,
  byUser,
  createLimiter,
  fixedWindow,
  layered,
  MemoryStore,
  type LimitRule,
} from '@floodgate/core';
import { contextOf } from './keys/context';

/**
 * Who shares a key: a control triggered by one request (reset, block, unblock) and a penalty act
 * only on the keys of that request's client, unless the operator names a rule.
 */

const window = () => fixedWindow({ limit: 3, window: '1h' });
type Req = { user?: string };

/** A per-client layer beside a global ceiling and a tenant layer keyed by a header the client sends. */
const mixed: LimitRule<Req>[] = [
  { name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 10, window: '1h' }) },
  { name: 'global', key: () => 'charges', algorithm: fixedWindow({ limit: 100, window: '1h' }) },
  { name: 'tenant', key: byHeader('x-tenant-id'), algorithm: fixedWindow({ limit: 50, window: '1h' }) },
];

const client = (ip: string, tenant = 'acme') => contextOf<Req>({ ip, headers: { 'x-tenant-id': tenant } });

function limiterOf(limits: LimitRule<Req>[]) {
  const clock = () => 0;
  return createLimiter<Req>({ store: new MemoryStore({ clock }), clock, limits });
}

const remaining = async (limiter: ReturnType<typeof limiterOf>, ip: string) =>
  Object.fromEntries(
    (await limiter.peek(client(ip), { cost: 0 })).results.map((layer) => [layer.rule, layer.remaining]),
  );

describe("a rule's scope", () => {
  it("is 'client' for byIp, byUser, byApiKey and layered(); 'shared' for byHeader and your own functions", async () => {
    const limits: LimitRule<Req>[] = [
      ...layered<Req>({ ip: window(), user: { id: (req) => req.user, algorithm: window() }, apiKey: window() }),
      { name: 'ip2', key: byIp({ ipv6Subnet: 64 }), algorithm: window() },
      { name: 'user2', key: byUser((req: Req) => req.user), algorithm: window() },
      { name: 'bearer', key: byApiKey({ header: 'authorization' }), algorithm: window() },
      { name: 'tenant', key: byHeader('x-tenant-id'), algorithm: window() },
      { name: 'mine', key: (ctx) => ctx.ip, algorithm: window() },
      { name: 'marked', key: (ctx) => ctx.ip, scope: 'client', algorithm: window() },
    ];
    const limiter = limiterOf(limits);
    const ctx = contextOf<Req>({
      ip: '203.0.113.5',
      req: { user: 'u1' },
      headers: { 'x-api-key': 'k', authorization: 'Bearer t', 'x-tenant-id': 'acme' },
    });
    await limiter.block(ctx, '1m');
    const blocked = (await limiter.peek(ctx, { cost: 0 })).results.filter((layer) => !layer.allowed);
    expect(blocked.map((layer) => layer.rule)).toEqual(['ip', 'user', 'apiKey', 'ip2', 'user2', 'bearer', 'marked']);
  });

  it('rejects a scope that is neither, with a coded error naming the rule', () => {
    const bad = [{ name: 'ip', key: byIp(), algorithm: window(), scope: 'mine' }] as unknown as LimitRule[];
    expect(() => createLimiter({ limits: bad })).toThrow(
      expect.objectContaining({
        code: 'ERR_FLOODGATE_INVALID_OPTION',
        message: expect.stringContaining('limits[0].scope'),
      }),
    );
  });
});

describe('controls triggered by one request', () => {
  it("block, reset and unblock without a rule touch the client's own keys, never the global or tenant key", async () => {
    const limiter = limiterOf(mixed);
    for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.2']) await limiter.consume(client(ip));
    await limiter.block(client('203.0.113.9'), '1h');
    expect((await limiter.consume(client('203.0.113.1'))).allowed).toBe(true);
    expect((await limiter.consume(client('203.0.113.9'))).rule).toBe('ip');
    await limiter.reset(client('203.0.113.2'));
    await limiter.unblock(client('203.0.113.2'));
    expect(await remaining(limiter, '203.0.113.2')).toEqual({ ip: 10, global: 96, tenant: 46 });
  });

  it('act on a shared rule when the operator names it', async () => {
    const limiter = limiterOf(mixed);
    await limiter.consume(client('203.0.113.1'));
    await limiter.reset(client('203.0.113.2'), { rule: 'global' });
    expect(await remaining(limiter, '203.0.113.1')).toEqual({ ip: 9, global: 100, tenant: 49 });
    await limiter.block(client('203.0.113.2'), '1m', { rule: 'tenant' });
    expect((await limiter.consume(client('203.0.113.1'))).rule).toBe('tenant');
    expect((await limiter.consume(client('203.0.113.1', 'other'))).allowed).toBe(true);
  });

  it('reject, with a coded error, when the limiter has no rule of its own for the request to act on', async () => {
    const limiter = limiterOf(mixed.slice(1));
    for (const control of [
      () => limiter.reset(client('203.0.113.1')),
      () => limiter.block(client('203.0.113.1'), '1h'),
      () => limiter.unblock(client('203.0.113.1')),
    ]) {
      await expect(control()).rejects.toMatchObject({
        code: 'ERR_FLOODGATE_INVALID_OPTION',
        message: expect.stringContaining("scope: 'client'"),
      });
    }
    expect((await limiter.consume(client('203.0.113.1'))).allowed).toBe(true);
  });

  it("leave byIp's fallback key alone: without an address, a request has no key of its own there", async () => {
    const limiter = limiterOf(mixed);
    await limiter.block(contextOf<Req>({ ip: undefined }), '1h');
    expect((await limiter.consume(contextOf<Req>({ ip: undefined }))).allowed).toBe(true);
  });
});

describe('penalties', () => {
  it('are refused at construction on a shared rule, whichever way it is shared', () => {
    const penalised = (rule: Partial<LimitRule>) =>
      [{ name: 'global', key: () => 'all', algorithm: window(), blockDuration: '1m', ...rule }] as LimitRule[];
    for (const rule of [{}, { key: byHeader('x-tenant-id') }, { key: byIp(), scope: 'shared' as const }]) {
      expect(() => createLimiter({ limits: penalised(rule) })).toThrow(
        expect.objectContaining({
          code: 'ERR_FLOODGATE_INVALID_OPTION',
          message: expect.stringMatching(/limits\[0\]\.blockDuration.*block every client/),
        }),
      );
    }
    expect(() => createLimiter({ limits: penalised({ scope: 'client' }) })).not.toThrow();
  });
});

describe("a control's selector", () => {
  it('is { rule } or nothing: a string, an unknown key or a rule that is not a string throws and changes nothing', async () => {
    const limiter = limiterOf(mixed);
    await limiter.consume(client('203.0.113.1'));
    const bad: unknown[] = ['ip', null, ['ip'], { rules: 'ip' }, { rule: 5 }, { rule: ['ip'] }, 7];
    for (const selector of bad) {
      const call = limiter as unknown as Record<string, (...args: unknown[]) => Promise<void>>;
      for (const [name, args] of [
        ['reset', [selector]],
        ['unblock', [selector]],
        ['block', ['1m', selector]],
      ] as const) {
        await expect(
          call[name]?.(client('203.0.113.1'), ...args),
          `${name} ${JSON.stringify(selector)}`,
        ).rejects.toMatchObject({
          code: 'ERR_FLOODGATE_INVALID_OPTION',
        });
      }
    }
    await expect(limiter.reset(client('203.0.113.1'), 'ip' as never)).rejects.toThrow('{ rule: "ip" }');
    expect(await remaining(limiter, '203.0.113.1')).toEqual({ ip: 9, global: 99, tenant: 49 });
  });
});
