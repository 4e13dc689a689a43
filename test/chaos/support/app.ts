import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { rateLimit, type RateLimitOptions } from '@floodgate/express';
import { fixedWindow, type DecisionEvent, type StoreErrorEvent } from '@floodgate/core';

/** One decision as the limiter made it, matched to the load driver's request by `x-request`. */
export interface DecisionRecord {
  id: number;
  at: number;
  allowed: boolean;
  degraded: boolean;
  unavailable: boolean;
  /** ms from the request reaching the app to the limiter's decision (key function + consume). */
  latency: number;
}

export interface ChaosApp {
  url: string;
  decisions: DecisionRecord[];
  storeErrors: { at: number; error: unknown }[];
  breakerChanges: { at: number; to: string }[];
  server: Server;
  close(): Promise<void>;
}

/**
 * A real Express app on a loopback port, limited per `x-client` header by the Express adapter with
 * the given store and resilience options. Hooks record every decision, store error and breaker
 * change with performance.now() timestamps.
 */
export async function startApp(
  options: Partial<RateLimitOptions> & { limit?: number; windowMs?: number },
): Promise<ChaosApp> {
  const { limit = 100, windowMs = 10_000, ...rest } = options;
  const decisions: DecisionRecord[] = [];
  const storeErrors: ChaosApp['storeErrors'] = [];
  const breakerChanges: ChaosApp['breakerChanges'] = [];
  const arrivals = new WeakMap<object, number>();
  const app = express();
  app.use((req: object, _res: unknown, next: () => void) => {
    arrivals.set(req, performance.now());
    next();
  });
  app.use(
    rateLimit({
      limits: [
        {
          name: 'client',
          key: (ctx) => ctx.header('x-client') ?? 'anonymous',
          algorithm: fixedWindow({ limit, window: windowMs }),
        },
      ],
      onDecision: ({ decision, ctx }: DecisionEvent) => {
        const now = performance.now();
        decisions.push({
          id: Number(ctx.header('x-request')),
          at: now,
          latency: now - (arrivals.get(ctx.req as object) ?? now),
          allowed: decision.allowed,
          degraded: decision.degraded,
          unavailable: decision.unavailable === true,
        });
      },
      onStoreError: ({ error }: StoreErrorEvent) => storeErrors.push({ at: performance.now(), error }),
      onBreakerChange: ({ to }) => breakerChanges.push({ at: performance.now(), to }),
      ...rest,
    } as RateLimitOptions),
  );
  app.get('/', (_req: unknown, res: { send(body: string): void }) => {
    res.send('ok');
  });
  const server = createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    decisions,
    storeErrors,
    breakerChanges,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
