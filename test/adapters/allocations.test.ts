import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { fixedWindow, leakyBucket } from '@floodgate/core';
import { rateLimit } from '@floodgate/express';
import { floodgate } from '@floodgate/fastify';
import { rateLimiter } from '@floodgate/hono';
import fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * What a request pays for is what the middleware allocates (issue 8): on the allowed path with a
 * MemoryStore and no option that needs one, no AbortController, no timer, no WeakMap entry and no
 * response listener may be made per request. Counted, not timed: each app serves the same requests
 * with counters on the globals, and a bare app's counts are subtracted (the HTTP client and the
 * framework make their own).
 */

const express: (...args: never[]) => ExpressApp = (await import('express' as string)).default;

interface ExpressApp {
  use(handler: unknown): void;
  get(path: string, handler: (req: unknown, res: { send(body: string): void }) => void): void;
  listen(
    port: number,
    host: string,
    callback: () => void,
  ): { address(): unknown; close(callback: () => void): void; closeAllConnections(): void };
}

interface Counts {
  abortControllers: number;
  timers: number;
  weakMapSets: number;
  responseListeners: number;
}

const REQUESTS = 60;

interface Served {
  url: string;
  close(): Promise<void>;
}

const running: Served[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

async function expressApp(middleware: unknown): Promise<Served> {
  const app = express();
  if (middleware !== undefined) app.use(middleware);
  app.get('/', (_req, res) => res.send('ok'));
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

async function fastifyApp(options: Record<string, unknown> | undefined): Promise<Served> {
  const app = fastify();
  if (options !== undefined) await app.register(floodgate, options);
  app.get('/', async () => 'ok');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => app.close() };
}

async function honoApp(middleware: unknown): Promise<Served> {
  const app = new Hono();
  if (middleware !== undefined) app.use(middleware as Parameters<typeof app.use>[0]);
  app.get('/', (c) => c.text('ok'));
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      resolve({
        url: `http://127.0.0.1:${info.port}/`,
        close: () =>
          new Promise((done) => {
            (server as unknown as { closeAllConnections(): void }).closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Runs `REQUESTS` requests (one at a time, keys spread) against `served` with the counters on. */
async function count(served: Served): Promise<Counts> {
  // One request first: whatever a framework sets up once (its first listener, a lazy timer) is not per request.
  await fetch(served.url, { headers: { 'x-api-key': 'warm-up' } }).then((response) => response.text());
  const counts: Counts = { abortControllers: 0, timers: 0, weakMapSets: 0, responseListeners: 0 };
  const restore = spy(counts);
  try {
    for (let i = 0; i < REQUESTS; i++) {
      const response = await fetch(served.url, { headers: { 'x-api-key': `key-${i}` } });
      expect(response.status).toBe(200);
      await response.text();
    }
  } finally {
    restore();
  }
  await served.close();
  return counts;
}

function spy(counts: Counts): () => void {
  const OriginalAbortController = globalThis.AbortController;
  const originalSetTimeout = globalThis.setTimeout;
  const originalWeakMapSet = WeakMap.prototype.set;
  const originalOn = EventEmitter.prototype.on;
  globalThis.AbortController = class extends OriginalAbortController {
    constructor() {
      super();
      counts.abortControllers++;
    }
  };
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    counts.timers++;
    return originalSetTimeout(...args);
  }) as typeof setTimeout;
  WeakMap.prototype.set = function set(this: WeakMap<object, unknown>, key: object, value: unknown) {
    counts.weakMapSets++;
    return originalWeakMapSet.call(this, key, value);
  };
  // once() adds its listener through on(), so counting on() counts both.
  EventEmitter.prototype.on = function on(
    this: EventEmitter,
    event: string | symbol,
    listener: Parameters<typeof originalOn>[1],
  ) {
    if (event === 'close' || event === 'finish') counts.responseListeners++;
    return originalOn.call(this, event, listener);
  };
  EventEmitter.prototype.addListener = EventEmitter.prototype.on;
  return () => {
    globalThis.AbortController = OriginalAbortController;
    globalThis.setTimeout = originalSetTimeout;
    WeakMap.prototype.set = originalWeakMapSet;
    EventEmitter.prototype.on = originalOn;
    EventEmitter.prototype.addListener = originalOn;
  };
}

function minus(a: Counts, b: Counts): Counts {
  return {
    abortControllers: a.abortControllers - b.abortControllers,
    timers: a.timers - b.timers,
    weakMapSets: a.weakMapSets - b.weakMapSets,
    responseListeners: a.responseListeners - b.responseListeners,
  };
}

const NOTHING: Counts = { abortControllers: 0, timers: 0, weakMapSets: 0, responseListeners: 0 };

const limits = [
  {
    name: 'key',
    key: (ctx: { header(name: string): string | undefined }) => ctx.header('x-api-key'),
    algorithm: fixedWindow({ limit: 1000, window: '1m' }),
  },
];

const adapters = [
  {
    name: 'express',
    bare: () => expressApp(undefined),
    with: (options: Record<string, unknown>) => expressApp(rateLimit(options)),
  },
  {
    name: 'fastify',
    bare: () => fastifyApp(undefined),
    with: (options: Record<string, unknown>) => fastifyApp(options),
  },
  {
    name: 'hono',
    bare: () => honoApp(undefined),
    with: (options: Record<string, unknown>) => honoApp(rateLimiter(options)),
  },
];

describe.each(adapters)('$name: what an allowed request allocates (MemoryStore)', (adapter) => {
  it('with the default options: no AbortController, timer, WeakMap entry or response listener', async () => {
    const bare = await count(await adapter.bare());
    const limited = await count(await adapter.with({ limits }));
    expect(minus(limited, bare)).toEqual(NOTHING);
  });

  it('with skipFailedRequests, which must watch the response: its listeners, and still no timer', async () => {
    const bare = await count(await adapter.bare());
    const limited = minus(await count(await adapter.with({ limits, skipFailedRequests: true })), bare);
    expect(limited).toMatchObject({ timers: 0, weakMapSets: 0 });
    // Each listens for the Node response's 'finish' and 'close' (Hono on @hono/node-server too:
    // a streamed body is still being sent after next() returns).
    expect(limited.responseListeners).toBe(2 * REQUESTS);
  });

  it('with shaping, which must wait: a timer per delayed request, and what ends the wait if the client leaves', async () => {
    // A frozen clock: the bucket never drains, so request k waits k ms (one unit leaks per ms).
    const frozen = () => Date.UTC(2026, 0, 1);
    const shaping = [
      { name: 'shape', key: () => 'one', algorithm: leakyBucket({ capacity: 1000, leakRate: 1000, mode: 'shaping' }) },
    ];
    const bare = await count(await adapter.bare());
    const limited = minus(await count(await adapter.with({ limits: shaping, clock: frozen })), bare);
    // The counters see what the middleware makes when it must (the HTTP client, waiting longer, may
    // make some of its own too): a timer per wait, and an AbortController (Express and Fastify make
    // one with a 'close' listener; Hono uses the request's own signal, which @hono/node-server
    // makes on first use).
    expect(limited.timers).toBeGreaterThanOrEqual(REQUESTS);
    expect(limited.abortControllers).toBeGreaterThanOrEqual(REQUESTS);
    expect(limited.weakMapSets).toBe(0);
    if (adapter.name !== 'hono') expect(limited.responseListeners).toBeGreaterThanOrEqual(REQUESTS);
  });
});
