import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byIp, concurrency, fixedWindow, MemoryStore, tokenBucket } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { Redis } from 'ioredis';
import { parseList } from 'structured-headers';
import { startRedis } from '../helpers/redis-server.ts';
import { drivers, get } from './drivers.ts';
import { T0, withApp } from './suite.ts';
import type { RedisServer } from '../helpers/redis-server.ts';

/**
 * Issue 24: `standardHeaders: 'draft-11'` over HTTP, through every adapter: `r` and `t` per layer,
 * `pk` when asked for, Retry-After never before the effective window, `qu` on concurrency layers,
 * and the draft's three problem types with `violated-policies`.
 */

const SECRET = 'draft-11 partition key secret, 32';
const PROBLEM = 'https://iana.org/assignments/http-problem-types';

let server: RedisServer;
let gone: Redis;

beforeAll(async () => {
  // A Redis that is started and then stopped: the store is unreachable, as in an outage.
  server = await startRedis();
  gone = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  await new Promise((resolve) => gone.once('ready', resolve));
  await server.stop();
});
afterAll(() => {
  gone.disconnect();
});

function clocked() {
  const state = { now: T0 + 20_000 };
  const clock = () => state.now;
  return { state, clock, store: new MemoryStore({ clock }) };
}

function pkOf(field: string): string[] {
  return parseList(field).map(([, params]) => Buffer.from(params.get('pk') as ArrayBuffer).toString('base64'));
}

describe.each(drivers)('$name', (driver) => {
  it('sends r, t and pk per layer; the 429 has Retry-After >= t and #quota-exceeded', async () => {
    const { clock, store } = clocked();
    const options = {
      store,
      clock,
      standardHeaders: 'draft-11',
      partitionKey: { secret: SECRET },
      limits: [
        { name: 'minute', key: byIp(), algorithm: fixedWindow({ limit: 2, window: '1m' }) },
        { name: 'burst', key: byIp(), algorithm: tokenBucket({ capacity: 10, refillRate: 1 }) },
      ],
    };
    await withApp(driver, { options, trustProxy: ['127.0.0.1'] }, async (app) => {
      const client = { 'x-forwarded-for': '198.51.100.7' };
      const first = await get(app.url, '/', client);
      expect(first.status).toBe(200);
      const policy = parseList(first.headers['ratelimit-policy'] as string);
      expect(policy.map(([name, params]) => [name, params.get('q'), params.get('w')])).toEqual([
        ['minute', 2, 60],
        ['burst', 10, 10],
      ]);
      const state = parseList(first.headers.ratelimit as string);
      expect(state.map(([name, params]) => [name, params.get('r'), params.get('t')])).toEqual([
        ['minute', 1, 40],
        ['burst', 9, 1],
      ]);
      const keys = pkOf(first.headers.ratelimit as string);
      expect(pkOf(first.headers['ratelimit-policy'] as string)).toEqual(keys);
      expect(new Set(keys).size).toBe(2);
      // The same client keeps its pk; another client gets others.
      expect(pkOf((await get(app.url, '/', client)).headers.ratelimit as string)).toEqual(keys);
      const other = await get(app.url, '/', { 'x-forwarded-for': '198.51.100.8' });
      expect(pkOf(other.headers.ratelimit as string)).not.toContain(keys[0]);
      const refused = await get(app.url, '/', client);
      expect(refused.status).toBe(429);
      const [[name, params] = []] = parseList(refused.headers.ratelimit as string);
      expect([name, params?.get('r'), params?.get('t')]).toEqual(['minute', 0, 40]);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(params?.get('t') as number);
      expect(JSON.parse(refused.body)).toMatchObject({
        type: `${PROBLEM}#quota-exceeded`,
        status: 429,
        retryAfter: 40,
        'violated-policies': ['minute'],
      });
    });
  });

  it('answers a penalised client with #abnormal-usage-detected', async () => {
    const { clock, store } = clocked();
    const options = {
      store,
      clock,
      standardHeaders: 'draft-11',
      limits: [{ name: 'login', key: byIp(), algorithm: fixedWindow({ limit: 1, window: '1m' }), blockDuration: '5m' }],
    };
    await withApp(driver, { options }, async (app) => {
      expect((await get(app.url)).status).toBe(200);
      const refused = await get(app.url);
      expect(refused.status).toBe(429);
      expect(refused.headers).toMatchObject({ 'retry-after': '300', ratelimit: '"login";r=0;t=300' });
      expect(JSON.parse(refused.body)).toMatchObject({
        type: `${PROBLEM}#abnormal-usage-detected`,
        title: 'Abnormal Usage Detected',
        status: 429,
        'violated-policies': ['login'],
      });
    });
  });

  it('states concurrency layers in concurrent-requests, with no window', async () => {
    const { clock, store } = clocked();
    const options = {
      store,
      clock,
      standardHeaders: 'draft-11',
      limits: [{ name: 'inflight', key: byIp(), algorithm: concurrency({ max: 4 }) }],
    };
    await withApp(driver, { options }, async (app) => {
      const reply = await get(app.url);
      expect(reply.headers['ratelimit-policy']).toBe('"inflight";q=4;qu="concurrent-requests"');
      expect(reply.headers.ratelimit).toBe('"inflight";r=3');
    });
  });

  it("answers failMode 'closed' refusals with 503 #temporary-reduced-capacity", async () => {
    const options = {
      store: new RedisStore({ client: gone }),
      failMode: 'closed',
      standardHeaders: 'draft-11',
      limits: [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 5, window: '1m' }) }],
    };
    await withApp(driver, { options }, async (app) => {
      const refused = await get(app.url);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(JSON.parse(refused.body)).toMatchObject({
        type: `${PROBLEM}#temporary-reduced-capacity`,
        status: 503,
        'violated-policies': ['ip'],
      });
    });
  });
});
