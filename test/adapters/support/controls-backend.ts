import { MemoryStore } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { redisForSuite } from '../../helpers/redis-server.ts';
import type { FloodgateWarning, Store } from '@floodgate/core';

/**
 * Where the control, status, shadow, tenant, priority and penalty suites keep their counts: one
 * MemoryStore, or one private redis-server reached by two clients (two app instances, one Redis).
 * A frozen clock drives both the middleware and the store, and every test gets a fresh key prefix.
 */

export const T0 = Date.UTC(2026, 0, 1);
export const T0s = T0 / 1000;
export const storeNames = ['memory', 'redis'] as const;
export type StoreName = (typeof storeNames)[number];

/**
 * The store deadline. These suites test what the store decides: on a busy machine a call over the
 * default 100 ms would be decided by the local fallback instead, and a test would see its answer.
 */
const PATIENCE = 10_000;

let server: { url: string; stop(): Promise<void> } | undefined;
const clients: Redis[] = [];
let sequence = 0;

/** Starts this file's redis-server and two clients to it; stops them after the file. */
export function useRedisBackend(): void {
  beforeAll(async () => {
    server = await redisForSuite();
    for (let i = 0; i < 2; i++) {
      const client = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
      await new Promise((resolve) => client.once('ready', resolve));
      clients.push(client);
    }
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await server?.stop();
  });
}

export interface Backend {
  now: number;
  readonly clock: () => number;
  readonly prefix: string;
  /** Everything reported to onWarning, by the middleware or the store. */
  readonly warnings: FloodgateWarning[];
  /**
   * Options for one app instance: a store over the backend's shared state (the one MemoryStore, or
   * a new RedisStore on the next client), the clock, the prefix and onWarning, then `extra`.
   */
  options(extra: Record<string, unknown>): Record<string, unknown>;
  /** Codes reported so far, in order. */
  codes(): string[];
}

export function backend(storeName: StoreName): Backend {
  const warnings: FloodgateWarning[] = [];
  const onWarning = (warning: FloodgateWarning) => warnings.push(warning);
  let made = 0;
  const state = {
    now: T0,
    clock: () => state.now,
    prefix: `c${process.pid}x${++sequence}x${Date.now() % 1e6}`,
    warnings,
    options(extra: Record<string, unknown>) {
      return { store: store(), clock: state.clock, prefix: state.prefix, onWarning, timeout: PATIENCE, ...extra };
    },
    codes: () => warnings.map((warning) => warning.code),
  };
  const memory = storeName === 'memory' ? new MemoryStore({ clock: state.clock }) : undefined;
  const store = (): Store => {
    if (memory !== undefined) return memory;
    const client = clients[made++ % clients.length] as Redis;
    return new RedisStore({ client, clock: state.clock, onWarning, timeout: PATIENCE });
  };
  return state;
}
