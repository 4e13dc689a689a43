import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow, MemoryStore, StoreError, StoreTimeoutError } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { SCRIPT_SOURCE } from '../../packages/redis/src/generated/lua.ts';
import { startRedis } from '../helpers/redis-server.ts';
import { ctxFor, freshPrefix as limiterPrefix, windowStartClock } from '../resilience/support.ts';
import { connectClient, freshPrefix, layerKey } from './fixtures/client.ts';
import { CLIENT_FAMILIES, connectFamily } from './fixtures/families.ts';
import type { Decision, FloodgateWarning } from '@floodgate/core';
import type { RedisStoreOptions } from '@floodgate/redis';
import type { Redis } from 'ioredis';
import type { RedisServer } from '../helpers/redis-server.ts';
import type { ClientFamily, FamilyClient, FamilyOptions } from './fixtures/families.ts';
import { recordStalls, stalledDuring } from '../helpers/loop-stalls.ts';

/**
 * The same semantics through every client family RedisStore takes (ioredis included, as the
 * reference): EVALSHA with EVAL on NOSCRIPT only, Functions, the server clock and its fallback, a
 * restart, and the limiter's deadline over a killed and a frozen server. What each client sent is
 * read from the server's INFO commandstats, the same way for every family.
 */

// A private server: these tests flush its scripts and functions and add ACL users.
let server: RedisServer;
let admin: Redis;

beforeAll(async () => {
  server = await startRedis();
  admin = await connectClient(server.url);
  // Scripts run with their caller's permissions: these users stand for a service that refuses
  // TIME inside scripts, and for a script error that has nothing to do with NOSCRIPT.
  await admin.call('ACL', 'SETUSER', 'no-time', 'on', 'nopass', '~*', '&*', '+@all', '-time');
  await admin.call('ACL', 'SETUSER', 'no-hset', 'on', 'nopass', '~*', '&*', '+@all', '-hset');
});
afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
});

/** Calls of `command` the server at `port` has seen (rejected and failed ones included). */
async function calls(command: string, port = server.port): Promise<number> {
  const stats = await adminOn(port).info('commandstats');
  const line = new RegExp(`^cmdstat_${command.replace('|', '\\|')}:(.*)$`, 'm').exec(stats)?.[1] ?? '';
  const field = (name: string) => Number(new RegExp(`\\b${name}=(\\d+)`).exec(line)?.[1] ?? 0);
  return field('calls') + field('rejected_calls');
}

const admins = new Map<number, Redis>();
function adminOn(port: number): Redis {
  if (port === server.port) return admin;
  const existing = admins.get(port);
  if (existing) return existing;
  throw new Error(`no admin connection to ${port}`);
}

const call = { key: layerKey('ip', 'f'), algorithm: fixedWindow({ limit: 10, window: '1h' }), cost: 1 };
const perMinute = (limit: number) => [
  { name: 'ip', key: (ctx: { ip: string | undefined }) => ctx.ip, algorithm: fixedWindow({ limit, window: 60_000 }) },
];

/**
 * Loads the script on the client's server with a store of the default deadline, so that a
 * limiter's first call is one EVALSHA: on a busy machine EVALSHA, NOSCRIPT and EVAL can take longer
 * than a 100 ms deadline, and the call the test starts from would be decided locally.
 */
async function loadScript(client: RedisStoreOptions['client']): Promise<void> {
  await new RedisStore({ client, prefix: freshPrefix('script-load') }).consume([call], 'script-load');
}

/**
 * A decision and how long it took, less the time this process' event loop was held up meanwhile
 * (a busy host, GC): what the limiter's deadline controls. Call it inside a recordStalls() span.
 */
async function timedConsume(consume: () => Promise<Decision>): Promise<{ decision: Decision; ms: number }> {
  const started = performance.now();
  const decision = await consume();
  const ended = performance.now();
  return { decision, ms: ended - started - stalledDuring(started, ended) };
}

describe.each(CLIENT_FAMILIES)('RedisStore over %s', (family: ClientFamily) => {
  const opened: FamilyClient[] = [];
  const servers: RedisServer[] = [];
  const connect = async (url = server.url, options?: FamilyOptions): Promise<RedisStoreOptions['client']> => {
    const connected = await connectFamily(family, url, options);
    opened.push(connected);
    return connected.client;
  };
  /** A private server for a test that kills or freezes it, with an admin connection for commandstats. */
  const ownServer = async (): Promise<RedisServer> => {
    const own = await startRedis();
    servers.push(own);
    admins.set(own.port, await connectClient(own.url, { retryStrategy: () => 20 }));
    admins.get(own.port)?.on('error', () => {});
    return own;
  };
  afterEach(async () => {
    for (const connected of opened.splice(0)) await connected.close();
    for (const own of servers.splice(0)) {
      admins.get(own.port)?.disconnect();
      admins.delete(own.port);
      await own.stop();
    }
  });

  it('sends EVALSHA; after SCRIPT FLUSH one NOSCRIPT, then one EVAL that answers and caches it again', async () => {
    const store = new RedisStore({ client: await connect(), prefix: freshPrefix(`flush-${family}`) });
    expect((await store.consume([call], 'a'))[0]).toMatchObject({ allowed: true, remaining: 9 });
    await admin.script('FLUSH');
    const before = { evalsha: await calls('evalsha'), eval: await calls('eval') };
    expect((await store.consume([call], 'b'))[0]).toMatchObject({ allowed: true, remaining: 8 });
    expect((await store.consume([call], 'c'))[0]).toMatchObject({ allowed: true, remaining: 7 });
    expect({ evalsha: (await calls('evalsha')) - before.evalsha, eval: (await calls('eval')) - before.eval }).toEqual({
      evalsha: 2,
      eval: 1,
    });
  });

  it('retries only NOSCRIPT: any other script error surfaces as a StoreError and EVAL is never sent', async () => {
    await admin.script('LOAD', SCRIPT_SOURCE);
    const store = new RedisStore({
      client: await connect(server.url, { username: 'no-hset' }),
      prefix: freshPrefix(`no-hset-${family}`),
    });
    const before = { evalsha: await calls('evalsha'), eval: await calls('eval') };
    const failure = await store.consume([call], 'a').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreError);
    expect(String(failure)).toMatch(/Redis consume failed: .*can't run this command/);
    expect({ evalsha: (await calls('evalsha')) - before.evalsha, eval: (await calls('eval')) - before.eval }).toEqual({
      evalsha: 1,
      eval: 0,
    });
  });

  it("scripts: 'function' loads the library once, and again after FUNCTION FLUSH", async () => {
    const store = new RedisStore({
      client: await connect(),
      prefix: freshPrefix(`fn-${family}`),
      scripts: 'function',
    });
    const loads = await calls('function|load');
    expect((await store.consume([call], 'a'))[0]).toMatchObject({ allowed: true, remaining: 9 });
    expect((await store.consume([call], 'b'))[0]).toMatchObject({ allowed: true, remaining: 8 });
    expect((await calls('function|load')) - loads).toBe(1);
    await admin.call('FUNCTION', 'FLUSH');
    expect((await store.consume([call], 'c'))[0]).toMatchObject({ allowed: true, remaining: 7 });
    expect((await calls('function|load')) - loads).toBe(2);
  });

  it("reads the server's clock and reports resetAt in this process' clock", async () => {
    const store = new RedisStore({ client: await connect(), prefix: freshPrefix(`clock-${family}`) });
    expect(store.clock).toBe('server');
    const [fromRedis] = await store.consume([call], 'a');
    const [fromMemory] = await new MemoryStore().consume([call], 'a');
    expect(Math.abs((fromRedis?.resetAt ?? 0) - (fromMemory?.resetAt ?? 0))).toBeLessThan(50);
  });

  it("falls back to this process' clock when scripts may not call TIME, answering that call and warning once", async () => {
    const warnings: FloodgateWarning[] = [];
    const store = new RedisStore({
      client: await connect(server.url, { username: 'no-time' }),
      prefix: freshPrefix(`no-time-${family}`),
      onWarning: (warning) => warnings.push(warning),
    });
    expect((await store.consume([call], 'a'))[0]).toMatchObject({ allowed: true, remaining: 9 });
    expect(store.clock).toBe('client');
    expect((await store.consume([call], 'b'))[0]).toMatchObject({ allowed: true, remaining: 8 });
    expect(warnings.filter((warning) => warning.code === 'WARN_FLOODGATE_SERVER_TIME')).toHaveLength(1);
  });

  it('survives a restart (state and script cache gone): once reconnected, Redis decides again', async () => {
    const own = await ownServer();
    const store = new RedisStore({ client: await connect(own.url), prefix: freshPrefix(`restart-${family}`) });
    expect((await store.consume([call], 'a'))[0]?.remaining).toBe(9);
    await own.kill();
    await own.start();
    const outcome = await untilAnswered(() => store.consume([call], 'b'));
    // No persistence: a fresh window.
    expect(outcome[0]).toMatchObject({ allowed: true, remaining: 9 });
  });

  it('a killed server: every decision is local within the deadline, and Redis decides again after the restart', async () => {
    const own = await ownServer();
    const client = await connect(own.url);
    let now = 1_000_000;
    const errors: unknown[] = [];
    const limiter = createLimiter({
      store: new RedisStore({ client, clock: windowStartClock() }),
      prefix: limiterPrefix(`killed-${family}`),
      clock: () => now,
      timeout: 100,
      breaker: { failureThreshold: 5, failureWindow: 10_000, cooldown: 1000 },
      onStoreError: ({ error }) => errors.push(error),
      limits: perMinute(100),
    });
    await loadScript(client);
    expect((await limiter.consume(ctxFor('192.0.2.1'))).degraded).toBe(false);
    await own.kill();
    const during = [];
    const stalls = recordStalls();
    for (let i = 0; i < 8; i++) during.push(await timedConsume(() => limiter.consume(ctxFor('192.0.2.1'))));
    stalls.stop();
    expect(during.every(({ decision }) => decision.degraded && decision.allowed)).toBe(true);
    expect(Math.max(...during.map(({ ms }) => ms))).toBeLessThanOrEqual(150);
    expect(errors).toHaveLength(5);

    await own.start();
    const probe = new RedisStore({ client, prefix: freshPrefix(`killed-probe-${family}`) });
    await untilAnswered(() => probe.consume([call], 'probe'));
    now += 1000;
    expect(await limiter.consume(ctxFor('192.0.2.1'))).toMatchObject({ degraded: false, allowed: true });
  });

  it('after a restart, Redis decides again at the first request once the client has reconnected, with the breaker defaults (issue 19, item 14)', async () => {
    const own = await ownServer();
    const client = await connect(own.url);
    const store = new RedisStore({ client, clock: windowStartClock() });
    if (family === 'valkey-glide') {
      // GLIDE reconnects out of sight: no ready count, so the limiter waits out its back-off.
      expect(store.readyCount).toBeUndefined();
      return;
    }
    const limiter = createLimiter({
      store,
      prefix: limiterPrefix(`reconnect-${family}`),
      // The limiter's clock stands still: only the reconnect can end the breaker's wait.
      clock: () => 1_000_000,
      timeout: 100,
      onStoreError: () => {},
      limits: perMinute(100),
    });
    expect((await limiter.consume(ctxFor('192.0.2.3'))).degraded).toBe(false);
    const before = store.readyCount;
    expect(before).toBe(0);
    await own.kill();
    for (let i = 0; i < 6; i++) expect((await limiter.consume(ctxFor('192.0.2.3'))).degraded).toBe(true);
    await own.start();
    // The client's ready event, not a time: it reconnects every 50 ms.
    while ((store.readyCount as number) === before) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await limiter.consume(ctxFor('192.0.2.3'))).toMatchObject({ degraded: false, allowed: true });
  });

  it('a frozen server (SIGSTOP): every decision within the deadline; five timeouts open the breaker', async () => {
    const own = await ownServer();
    // The client's own deadline is longer than the limiter's: the limiter's must be the bound.
    const client = await connect(own.url, { commandTimeout: 5000 });
    const errors: unknown[] = [];
    const limiter = createLimiter({
      store: new RedisStore({ client }),
      prefix: limiterPrefix(`frozen-${family}`),
      timeout: 100,
      onStoreError: ({ error }) => errors.push(error),
      limits: perMinute(100),
    });
    await loadScript(client);
    expect((await limiter.consume(ctxFor('192.0.2.2'))).degraded).toBe(false);
    own.signal('SIGSTOP');
    const stalls = recordStalls();
    try {
      const during = [];
      for (let i = 0; i < 8; i++) during.push(await timedConsume(() => limiter.consume(ctxFor('192.0.2.2'))));
      stalls.stop();
      expect(during.every(({ decision }) => decision.degraded && decision.allowed)).toBe(true);
      expect(Math.max(...during.map(({ ms }) => ms))).toBeLessThanOrEqual(150);
      // Open breaker: the last three never reached the client.
      expect(during.slice(5).every(({ ms }) => ms < 20)).toBe(true);
      expect(errors).toHaveLength(5);
      expect(errors.every((error) => error instanceof StoreTimeoutError)).toBe(true);
    } finally {
      stalls.stop();
      own.signal('SIGCONT');
    }
  });
});

/** Calls `attempt` every 50 ms until it resolves (at most 5 s): a client reconnecting after a restart. */
async function untilAnswered<T>(attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
