import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { byIp, fixedWindow } from '@floodgate/core';
import { rateLimiter } from '@floodgate/hono';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { fixture, storeNames, useRedis } from './suite.ts';

/**
 * Catalogue C35 on Hono: a streamed body is still being sent after the handler returns. The
 * outcome (skipFailedRequests) is judged when the response is done, as on Express and Fastify: a
 * body that fails, or a client that leaves mid-stream, gets its unit back, once.
 */
useRedis();

async function streamingApp(options: Record<string, unknown>) {
  const app = new Hono();
  app.use(
    '*',
    rateLimiter({
      limits: [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 5, window: '1m' }) }],
      skipFailedRequests: true,
      ...options,
    }),
  );
  let fail: ((error: Error) => void) | undefined;
  app.get('/stream', (c) =>
    c.body(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('partial'));
          fail = (error) => controller.error(error);
        },
      }),
    ),
  );
  const server = await new Promise<{ server: Server; port: number }>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({ server: started as Server, port: info.port }),
    );
  });
  return {
    url: `http://127.0.0.1:${server.port}/stream`,
    fail: (error: Error) => fail?.(error),
    close() {
      server.server.closeAllConnections();
      server.server.close();
    },
  };
}

describe.each(storeNames)('%s store: Hono with a streamed body', (storeName) => {
  it('a body whose source fails after the 200 is a failed response: one refund', async () => {
    const f = fixture(storeName);
    const app = await streamingApp({ clock: f.clock, store: f.store, prefix: f.prefix });
    try {
      const response = await fetch(app.url);
      expect(response.status).toBe(200);
      const reader = response.body?.getReader();
      await reader?.read();
      app.fail(new Error('source failed'));
      await expect(reader?.read()).rejects.toThrow();
      await f.store.refunded(1);
      expect(f.store.refunds).toEqual([{ kinds: ['fixedWindow'], cost: 1 }]);
    } finally {
      app.close();
    }
  });

  it('a client that leaves mid-stream gets its unit back, once', async () => {
    const f = fixture(storeName);
    const app = await streamingApp({ clock: f.clock, store: f.store, prefix: f.prefix });
    try {
      const abort = new AbortController();
      const response = await fetch(app.url, { signal: abort.signal });
      expect(response.status).toBe(200);
      await response.body?.getReader().read();
      abort.abort();
      await f.store.refunded(1);
      expect(f.store.refunds).toEqual([{ kinds: ['fixedWindow'], cost: 1 }]);
    } finally {
      app.close();
    }
  });
});
