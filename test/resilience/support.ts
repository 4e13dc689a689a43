import { createLimiter, type Decision, fixedWindow, type LimiterOptions } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { Redis, type RedisOptions } from 'ioredis';
import { afterEach } from 'vitest';
import { type RedisServer, type StartRedisOptions, startRedis } from '../helpers/redis-server.ts';
import { limiterKey } from '../redis/fixtures/client.ts';
import { contextOf } from '../helpers/context.ts';

/**
 * An ioredis client with the settings reliability.md recommends (no offline queue, no per-request
 * retries, a command timeout), reconnecting every 50 ms so tests do not wait on back-off.
 * Not awaited: the limiter must cope with a client that is not ready yet.
 */
export function tunedClient(port: number, extra: RedisOptions = {}): Redis {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1000,
    connectTimeout: 1000,
    retryStrategy: () => 50,
    reconnectOnError: null,
    ...extra,
  });
  // Connection errors are expected in these suites; the limiter reports store errors itself.
  client.on('error', () => {});
  return client;
}

/**
 * An ioredis client with the root README's settings (test/docs/client-setup.test.ts keeps the
 * README's copies the same): tunedClient's, with its command timeout and reconnect back-off, and
 * lazily connected (call `connect()`).
 */
export function readmeClient(port: number): Redis {
  return tunedClient(port, {
    commandTimeout: 100,
    retryStrategy: (attempt) => Math.min(attempt * 50, 1000),
    lazyConnect: true,
  });
}

/** Resolves once the client is ready to take commands. */
export function ready(client: Redis): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => client.once('ready', () => resolve()));
}

/** Calls of `commands` recorded by INFO commandstats on the server at `port` (admin connection). */
export async function commandCalls(port: number, commands: readonly string[] = ['evalsha', 'eval']): Promise<number> {
  const admin = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await admin.connect();
    const info = await admin.info('commandstats');
    let total = 0;
    for (const command of commands) {
      const match = new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(info);
      total += match ? Number(match[1]) : 0;
    }
    return total;
  } finally {
    admin.disconnect();
  }
}

/** Runs one command on the server at `port` over a private connection. */
export async function adminCommand(port: number, ...args: (string | number)[]): Promise<unknown> {
  const admin = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await admin.connect();
    return await admin.call(...(args as [string, ...(string | number)[]]));
  } finally {
    admin.disconnect();
  }
}

/** 2030-01-01T00:00:00Z, a multiple of every window these suites use (10 s, 1 min, 1 h). */
const WINDOW_START = Date.UTC(2030, 0, 1);

/**
 * A RedisStore clock that runs in real time from the start of a window. The server's clock can
 * cross a minute boundary between two calls of a test (on a busy machine one did, and the count it
 * checked had started again); this one only does after a whole window of test time.
 */
export function windowStartClock(): () => number {
  const origin = performance.now();
  return () => WINDOW_START + Math.floor(performance.now() - origin);
}

let counter = 0;

/** A limiter prefix no other test uses. */
export function freshPrefix(name: string): string {
  counter += 1;
  return `rs-${name}-${process.pid}-${counter}`;
}

/** A KeyContext for an IP. */
export const ctxFor = (ip: string) => contextOf({ ip });

/** Starts what a test needs; each part is stopped after the test, the last started first. */
export interface PerTestParts {
  /** A private redis-server. */
  redis(options?: StartRedisOptions): Promise<RedisServer>;
  /** A tunedClient on `port` (not awaited: see `ready`). */
  client(port: number, extra?: RedisOptions): Redis;
  /** packages/redis/README.md's recommended settings (a 100 ms commandTimeout, autopipelining), ready. */
  recommendedClient(port: number, extra?: RedisOptions): Promise<Redis>;
  /** Runs `step` after the test, before the teardown of everything started earlier. */
  defer(step: () => unknown): void;
}

/** Registers the afterEach that undoes, in reverse order, what the returned parts started. Call once a file. */
export function usePerTestParts(): PerTestParts {
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  const defer = (step: () => unknown) => {
    cleanup.push(step);
  };
  return {
    async redis(options) {
      const server = await startRedis(options);
      defer(() => server.stop());
      return server;
    },
    client(port, extra) {
      const client = tunedClient(port, extra);
      defer(() => client.disconnect());
      return client;
    },
    async recommendedClient(port, extra) {
      const client = tunedClient(port, { commandTimeout: 100, enableAutoPipelining: true, ...extra });
      defer(() => client.disconnect());
      await ready(client);
      return client;
    },
    defer,
  };
}

/**
 * A limiter of one `ip` layer (fixedWindow, `limit` per minute) on a RedisStore over `client` whose
 * clock is `storeClock`; other options go to createLimiter (its own `clock` drives the breaker and
 * the fallback). Limiters that share a prefix must share `storeClock` too (see windowStartClock).
 */
export function ipLimiter(
  client: Redis,
  prefix: string,
  {
    limit = 1000,
    storeClock = windowStartClock(),
    ...options
  }: { limit?: number; storeClock?: () => number } & Partial<LimiterOptions> = {},
) {
  return createLimiter({
    store: new RedisStore({ client, clock: storeClock }),
    prefix,
    limits: [{ name: 'ip', key: (ctx) => ctx.ip, algorithm: fixedWindow({ limit, window: 60_000 }) }],
    ...options,
  });
}

/** The key an ipLimiter of `limit` per minute writes for `ip` under `prefix`. */
export function ipLimiterKey(prefix: string, ip: string, limit = 1000): string {
  return limiterKey(prefix, 'ip', fixedWindow({ limit, window: 60_000 }), ip);
}

/** The count Redis at `port` holds for `ip` under `prefix` (an ipLimiter's fixedWindow hash). */
export async function chargedInRedis(port: number, prefix: string, ip: string, limit = 1000): Promise<number> {
  return Number(await adminCommand(port, 'HGET', ipLimiterKey(prefix, ip, limit), 'count'));
}

/** A decision and how long it took, in ms. */
export async function timed(run: () => Promise<Decision>): Promise<{ decision: Decision; ms: number }> {
  const started = performance.now();
  const decision = await run();
  return { decision, ms: performance.now() - started };
}
