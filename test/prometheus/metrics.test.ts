import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixedWindow, type LimitRule } from '@floodgate/core';
import { rateLimit, type RateLimitOptions } from '@floodgate/express';
import { floodgate } from '@floodgate/fastify';
import { RedisStore } from '@floodgate/redis';
import express from 'express';
import fastify from 'fastify';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { prometheusHooks } from '../../packages/prometheus/src/index.ts';
import { freshPrefix, ready, usePerTestParts, windowStartClock } from '../resilience/support.ts';
import { scrape } from './scrape.ts';

/**
 * @floodgate/prometheus through real apps: traffic over HTTP, then GET /metrics (a route serving
 * registry.metrics(), never limited itself), and every counter equals what was sent.
 */

const parts = usePerTestParts();

const DECISIONS = 'floodgate_decisions_total';
const CALLS = 'floodgate_store_call_duration_seconds';
const ERRORS = 'floodgate_store_errors_total';
const BREAKER = 'floodgate_breaker_state';
const verdict = (outcome: string, degraded: boolean) => ({ rule: 'ip', outcome, degraded: String(degraded) });

const perMinute = (limit: number): LimitRule[] => [
  { name: 'ip', key: (ctx) => ctx.ip, algorithm: fixedWindow({ limit, window: 60_000 }) },
];

/** GETs `url` `n` times, one after the other; the statuses in order. */
async function statuses(url: string, n: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < n; i++) {
    const response = await fetch(url);
    await response.arrayBuffer();
    seen.push(response.status);
  }
  return seen;
}

const times = (status: number, n: number): number[] => new Array(n).fill(status);

async function expressApp(registry: Registry, options: RateLimitOptions): Promise<string> {
  const app = express();
  app.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  app.use('/api', rateLimit(options));
  app.get('/api', (_req, res) => {
    res.send('ok');
  });
  const server = createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  parts.defer(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function fastifyApp(registry: Registry, options: Record<string, unknown>): Promise<string> {
  const app = fastify();
  await app.register(floodgate, options as never);
  app.get('/metrics', { config: { rateLimit: false } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
  app.get('/api', async () => 'ok');
  await app.listen({ port: 0, host: '127.0.0.1' });
  parts.defer(() => app.close());
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

describe('/metrics of an app limited by Floodgate', () => {
  it('Express with a MemoryStore: 10 requests against a limit of 7 read as 7 allowed and 3 denied', async () => {
    const registry = new Registry();
    const url = await expressApp(registry, {
      limits: perMinute(7),
      clock: () => 60_000,
      ...prometheusHooks({ registry }),
    });
    expect(await statuses(`${url}/api`, 10)).toEqual([...times(200, 7), ...times(429, 3)]);

    const metrics = await scrape(`${url}/metrics`);
    expect(metrics.value(DECISIONS, verdict('allowed', false))).toBe(7);
    expect(metrics.value(DECISIONS, verdict('denied', false))).toBe(3);
    expect(metrics.sum(DECISIONS)).toBe(10);
    // remaining 1 and 0 are under 20 % of 7.
    expect(metrics.value('floodgate_near_limit_total', { rule: 'ip' })).toBe(2);
    // A MemoryStore makes no remote call, cannot fail and has no breaker.
    expect([metrics.has(`${CALLS}_count`), metrics.has(ERRORS), metrics.has(BREAKER)]).toEqual([false, false, false]);
  });

  it('Fastify with a RedisStore: traffic, a frozen Redis, the breaker opening and closing again', async () => {
    const server = await parts.redis();
    const client = parts.client(server.port);
    await ready(client);
    let now = 1_000_000;
    const registry = new Registry();
    const url = await fastifyApp(registry, {
      store: new RedisStore({ client, clock: windowStartClock() }),
      prefix: freshPrefix('prometheus'),
      clock: () => now,
      // Above the default 100 ms, so that a busy machine cannot turn a call into a timeout.
      timeout: 500,
      // Off, so that every request is a store call while Redis is up.
      denyCache: false,
      limits: perMinute(7),
      ...prometheusHooks({ registry }),
    });

    expect(await statuses(`${url}/api`, 10)).toEqual([...times(200, 7), ...times(429, 3)]);
    let metrics = await scrape(`${url}/metrics`);
    expect([
      metrics.value(DECISIONS, verdict('allowed', false)),
      metrics.value(DECISIONS, verdict('denied', false)),
    ]).toEqual([7, 3]);
    expect(metrics.value(`${CALLS}_count`, { operation: 'consume', outcome: 'ok' })).toBe(10);
    expect([metrics.has(ERRORS), metrics.has(BREAKER)]).toEqual([false, false]);

    // Frozen: each call misses the 500 ms deadline until 5 failures open the breaker; the local
    // fallback (7 per minute on this instance) answers all 8 requests.
    server.signal('SIGSTOP');
    expect(await statuses(`${url}/api`, 8)).toEqual([...times(200, 7), 429]);
    metrics = await scrape(`${url}/metrics`);
    expect(metrics.value(DECISIONS, verdict('allowed', true))).toBe(7);
    expect(metrics.value(DECISIONS, verdict('denied', true))).toBe(1);
    expect(metrics.sum(DECISIONS)).toBe(18);
    expect(metrics.value(ERRORS, { operation: 'consume', code: 'ERR_FLOODGATE_STORE_TIMEOUT' })).toBe(5);
    expect(metrics.sum(ERRORS)).toBe(5);
    expect(metrics.value(`${CALLS}_count`, { operation: 'consume', outcome: 'error' })).toBe(5);
    expect(metrics.value(`${CALLS}_bucket`, { operation: 'consume', outcome: 'error', le: '0.25' })).toBe(0);
    expect(metrics.value(BREAKER, { partition: '' })).toBe(2);
    // 2 near-limit verdicts from Redis, 2 from the local fallback.
    expect(metrics.value('floodgate_near_limit_total', { rule: 'ip' })).toBe(4);

    // Thawed, Redis runs the 5 late calls (the key stays over its limit); PING returns after them.
    server.signal('SIGCONT');
    await client.ping();
    now += 30_000;
    expect(await statuses(`${url}/api`, 1)).toEqual([429]);
    metrics = await scrape(`${url}/metrics`);
    expect(metrics.value(BREAKER, { partition: '' })).toBe(0);
    expect(metrics.value(DECISIONS, verdict('denied', false))).toBe(4);
    expect(metrics.value(`${CALLS}_count`, { operation: 'consume', outcome: 'ok' })).toBe(11);
    expect(metrics.sum(DECISIONS)).toBe(19);
  });

  it("Express with a RedisStore gone and failMode 'closed': 503s counted as unavailable, errors by code", async () => {
    const server = await parts.redis();
    const client = parts.client(server.port);
    await ready(client);
    const registry = new Registry();
    const url = await expressApp(registry, {
      store: new RedisStore({ client, clock: windowStartClock() }),
      prefix: freshPrefix('prometheus'),
      clock: () => 1_000_000,
      timeout: 500,
      failMode: 'closed',
      limits: perMinute(7),
      ...prometheusHooks({ registry }),
    });
    expect(await statuses(`${url}/api`, 2)).toEqual([200, 200]);

    // Once the client has seen the connection close, each call fails at once (no offline queue).
    const closed = once(client, 'close');
    await server.kill();
    await closed;
    expect(await statuses(`${url}/api`, 7)).toEqual(times(503, 7));
    const metrics = await scrape(`${url}/metrics`);
    expect(metrics.value(DECISIONS, verdict('allowed', false))).toBe(2);
    expect(metrics.value(DECISIONS, verdict('unavailable', true))).toBe(7);
    expect(metrics.sum(DECISIONS)).toBe(9);
    expect(metrics.value(ERRORS, { operation: 'consume', code: 'ERR_FLOODGATE_STORE' })).toBe(5);
    expect(metrics.sum(ERRORS)).toBe(5);
    expect(metrics.value(BREAKER, { partition: '' })).toBe(2);
  });
});
