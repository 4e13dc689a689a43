import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { type Defer, useExampleServer } from './example-server.ts';
import { type RedisServer, startRedis } from './redis-server.ts';
import { clearOfWindowEdge } from './window-edge.ts';

/**
 * The behaviour every framework example (examples/express, fastify, hono) promises, run against
 * one of them listening at `suite.base`: the same routes, the same limits, the same headers.
 */
export function describeExampleApi(framework: string, suite: { readonly base: string }): void {
  const call = (method: string, path: string, headers: Record<string, string> = {}) =>
    fetch(`${suite.base}${path}`, { method, headers: { accept: 'application/json', ...headers } });

  describe(`the ${framework} example`, () => {
    it('allows 5 logins per minute per IP, then answers 429 with headers', async () => {
      for (let left = 4; left >= 0; left--) {
        const response = await call('POST', '/login');
        expect(response.status).toBe(200);
        expect(response.headers.get('ratelimit-policy')).toBe('"ip";q=5;w=60');
        expect(response.headers.get('ratelimit')).toMatch(new RegExp(`^"ip";r=${left};t=\\d+$`));
      }
      const denied = await call('POST', '/login');
      expect(denied.status).toBe(429);
      expect(denied.headers.get('ratelimit')).toMatch(/^"ip";r=0;t=\d+$/);
      expect(Number(denied.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(denied.headers.get('x-ratelimit-limit')).toBe('5');
      expect(denied.headers.get('content-type')).toContain('application/problem+json');
    });

    it('gives a signed-in user 10 requests at once, then 429 from the user layer', async () => {
      const alice = { authorization: 'Bearer alice' };
      for (let left = 9; left >= 0; left--) {
        const response = await call('GET', '/api/items', alice);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ user: 'alice', remaining: left });
      }
      const denied = await call('GET', '/api/items', alice);
      expect(denied.status).toBe(429);
      expect(denied.headers.get('ratelimit')).toMatch(/^"user";r=0;t=1, "ip";r=\d+;t=\d+$/);
      expect(denied.headers.get('ratelimit-policy')).toBe('"user";q=10;w=10, "ip";q=100;w=60');
      // Another user, and anonymous requests, still pass: only alice's bucket is empty.
      expect((await call('GET', '/api/items', { authorization: 'Bearer bob' })).status).toBe(200);
      const anonymous = await call('GET', '/api/items');
      expect(anonymous.status).toBe(200);
      // alice's 10, bob's 1 and this one: the denied request was not counted.
      expect(anonymous.headers.get('ratelimit')).toMatch(/^"ip";r=88;t=\d+$/);
    });

    it('never limits the health route and sends it no rate-limit headers', async () => {
      for (let i = 0; i < 110; i++) await call('GET', '/api/items');
      const health = await call('GET', '/api/health');
      expect(health.status).toBe(200);
      expect(health.headers.get('ratelimit')).toBeNull();
      expect((await call('GET', '/api/items')).status).toBe(429);
    });
  });
}

/** What an example's createStore resolves to: a store and the way to close its connection. */
export interface OpenedStore {
  readonly store: unknown;
  close(): Promise<void>;
}

/** One framework example, as describeExampleRedis starts it on Redis. */
export interface RedisExample<Opened extends OpenedStore> {
  /** The example's own createStore from src/store.js: the code under test, given the private server's URL. */
  createStore(redisUrl: string): Promise<Opened>;
  /** Starts the example's app on `store`, hands its teardown to `defer`, and returns its base URL. */
  listen(store: Opened['store'], defer: Defer): Promise<string>;
  /** KEYS pattern of the /login limiter's per-IP counters (default `login:ip:*`). */
  loginKeys?: string;
}

/**
 * The promise every framework example makes with a RedisStore: its src/store.js connects to the
 * server it is given and /login counts there. Each run has a private redis-server, so the
 * example's fixed prefixes start from nothing.
 */
export function describeExampleRedis<Opened extends OpenedStore>(
  framework: string,
  example: RedisExample<Opened>,
): void {
  describe(`the ${framework} example on Redis`, () => {
    let redis: RedisServer;
    const suite = useExampleServer(async (defer) => {
      redis = await startRedis();
      defer(() => redis.stop());
      const { store, close } = await example.createStore(redis.url);
      defer(close);
      return example.listen(store, defer);
    }, 20_000);

    it('counts in Redis when given a REDIS_URL: 5 logins, then 429', async () => {
      // Redis decides on its own clock: keep the six requests inside one minute of it.
      await clearOfWindowEdge(60_000);
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await fetch(`${suite.base}/login`, { method: 'POST' })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      const client = new Redis(redis.url);
      const keys = await client.keys(example.loginKeys ?? 'login:ip:*');
      await client.quit();
      expect(keys).toHaveLength(1);
    });
  });
}
