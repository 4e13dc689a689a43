import { afterAll, beforeAll } from 'vitest';
import { MemoryStore } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { Redis } from 'ioredis';
import { redisForSuite } from '../helpers/redis-server.ts';
import { WatchedStore } from './watched-store.ts';
import type { Store } from '@floodgate/core';
import type { AppSpec, Driver, Running } from './drivers.ts';

/** Shared set-up of the adapter suites: both stores, a frozen clock, a fresh prefix per test. */

export const T0 = Date.UTC(2026, 0, 1);
export const T0s = T0 / 1000;
let redis: { url: string; stop(): Promise<void> } | undefined;
let client: Redis | undefined;
let sequence = 0;

/** Starts the suite's private redis-server (or uses REDIS_URL) for the file that calls it. */
export function useRedis(): void {
  beforeAll(async () => {
    redis = await redisForSuite();
    client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    await new Promise((resolve) => client?.once('ready', resolve));
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });
}

const makers: Record<string, (clock: () => number) => Store> = {
  memory: (clock) => new MemoryStore({ clock }),
  redis: (clock) => new RedisStore({ client: client as Redis, clock }),
};
export const storeNames = Object.keys(makers);

export interface Fixture {
  now: number;
  clock: () => number;
  store: WatchedStore;
  prefix: string;
}

export function fixture(storeName: string): Fixture {
  const f = { now: T0 } as Fixture;
  f.clock = () => f.now;
  f.store = new WatchedStore((makers[storeName] as (clock: () => number) => Store)(f.clock));
  f.prefix = `t${process.pid}x${++sequence}x${Date.now() % 1e6}`;
  return f;
}

export async function withApp(driver: Driver, spec: AppSpec, run: (app: Running) => Promise<void>): Promise<void> {
  const app = await driver.start(spec);
  try {
    await run(app);
  } finally {
    await app.close();
  }
}

/** Yields to the event loop until `condition` holds (the test's timeout bounds it). */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
