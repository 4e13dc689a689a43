import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { serve } from '@hono/node-server';
import { rateLimit } from '@floodgate/express';
import { floodgate } from '@floodgate/fastify';
import { rateLimiter } from '@floodgate/hono';
import fastify5 from 'fastify';
import { Hono } from 'hono';
import { byIp, fixedWindow } from '@floodgate/core';
import { fixture, storeNames, useRedis } from './suite.ts';
import type { Server } from 'node:http';
import type { RateLimitInfo } from '@floodgate/core';
// The Express 4 and Fastify 4 aliases are dev dependencies of the adapter packages (as in drivers.ts).
import fastify4 from '../../packages/fastify/node_modules/fastify4/fastify.js';

/**
 * Catalogue C35: with skipFailedRequests, a response that errors is a failed one and its unit is
 * given back exactly once: a handler that throws (the framework answers 500), and, on Node's own
 * response, a body cut off by a destroyed socket after the status line went out.
 */

useRedis();

// biome-ignore lint/suspicious/noExplicitAny: Express ships no types to the test package.
const express5: any = (await import('express' as string)).default;
// biome-ignore lint/suspicious/noExplicitAny: as above, for the Express 4 alias.
const express4: any = (await import('../../packages/express/node_modules/express4/index.js' as string)).default;

interface Started {
  url: string;
  close(): Promise<void>;
}

/** One framework's app: `/` answers the remaining units, `/throw` throws, `/cut` (Node only) dies mid-body. */
interface ErrorApp {
  name: string;
  /** Whether the app has `/cut`, which writes to Node's response directly. */
  cuts: boolean;
  start(options: Record<string, unknown>): Promise<Started>;
}

const remaining = (info: RateLimitInfo | undefined) => JSON.stringify({ remaining: info?.remaining });

/** Sends the status line and part of a body, then destroys the socket once that part is written. */
function cut(raw: {
  writeHead(status: number): unknown;
  write(chunk: string, done: () => void): unknown;
  destroy(): void;
}) {
  raw.writeHead(200);
  raw.write('partial', () => raw.destroy());
}

function listen(server: Server): Promise<Started> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

// biome-ignore lint/suspicious/noExplicitAny: one starter serves two Express major versions.
function expressApp(name: string, express: any): ErrorApp {
  return {
    name,
    cuts: true,
    start(options) {
      const app = express();
      app.use(rateLimit(options));
      app.get('/', (req: { rateLimit?: RateLimitInfo }, res: { send(body: string): void }) =>
        res.send(remaining(req.rateLimit)),
      );
      app.get('/throw', () => {
        throw new Error('handler failed');
      });
      app.get('/cut', (_req: unknown, res: Parameters<typeof cut>[0]) => cut(res));
      // Express logs the error of /throw to stderr unless an error handler answers it.
      app.use(
        (_error: unknown, _req: unknown, res: { status(code: number): { send(body: string): void } }, _next: unknown) =>
          res.status(500).send('failed'),
      );
      return listen(createServer(app));
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: one starter serves two Fastify major versions.
function fastifyApp(name: string, fastify: any): ErrorApp {
  return {
    name,
    cuts: true,
    async start(options) {
      const app = fastify({ forceCloseConnections: true });
      await app.register(floodgate, options);
      app.get('/', async (request: { rateLimit?: RateLimitInfo }) => remaining(request.rateLimit));
      app.get('/throw', async () => {
        throw new Error('handler failed');
      });
      app.get('/cut', (_request: unknown, reply: { hijack(): void; raw: Parameters<typeof cut>[0] }) => {
        reply.hijack();
        cut(reply.raw);
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
    },
  };
}

const honoApp: ErrorApp = {
  name: 'hono',
  cuts: false,
  start(options) {
    const app = new Hono();
    app.use('*', rateLimiter(options));
    app.get('/', (c) => c.text(remaining(c.get('rateLimit'))));
    app.get('/throw', () => {
      throw new Error('handler failed');
    });
    app.onError((_error, c) => c.text('failed', 500));
    return new Promise((resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
        resolve({
          url: `http://127.0.0.1:${info.port}`,
          close: () =>
            new Promise((done) => {
              (server as Server).closeAllConnections();
              server.close(() => done());
            }),
        });
      });
    });
  },
};

const APPS = [
  expressApp('express 5', express5),
  expressApp('express 4', express4),
  fastifyApp('fastify 5', fastify5),
  fastifyApp('fastify 4', fastify4),
  honoApp,
];

/** Fetches and reads the whole body; a cut-off body or connection is `'cut'`. */
async function outcome(url: string): Promise<number | 'cut'> {
  try {
    const response = await fetch(url);
    await response.text();
    return response.status;
  } catch {
    return 'cut';
  }
}

const remainingAt = async (url: string) => JSON.parse(await (await fetch(url)).text()).remaining as number;

describe.each(storeNames)('%s store', (storeName) => {
  it.each(APPS)('$name: skipFailedRequests gives back the unit of a response that errors, once', async (starter) => {
    const f = fixture(storeName);
    const limits = [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 5, window: '1m' }) }];
    const app = await starter.start({
      limits,
      skipFailedRequests: true,
      clock: f.clock,
      store: f.store,
      prefix: f.prefix,
    });
    try {
      // One success stays charged, so a second refund of any failure would show in the count.
      expect(await remainingAt(app.url)).toBe(4);
      const failures: string[] = ['/throw', '/throw'];
      if (starter.cuts) failures.push('/cut', '/cut');
      for (const [i, path] of failures.entries()) {
        expect(await outcome(app.url + path), path).toBe(path === '/throw' ? 500 : 'cut');
        await f.store.refunded(i + 1);
      }
      // Each failure was charged and given back once: only the two successes count.
      expect(await remainingAt(app.url)).toBe(3);
      expect(f.store.refunds).toEqual(failures.map(() => ({ kinds: ['fixedWindow'], cost: 1 })));
    } finally {
      await app.close();
    }
    expect(f.store.refunds).toHaveLength(starter.cuts ? 4 : 2);
  });
});
