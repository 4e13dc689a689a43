import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { rateLimit, rateLimitStatus as expressStatus } from '@floodgate/express';
import { floodgate } from '@floodgate/fastify';
import { rateLimiter, rateLimitStatus as honoStatus } from '@floodgate/hono';
import { rateLimit as koaRateLimit, rateLimitStatus as koaStatus } from '@floodgate/koa';
import Koa from 'koa';
import fastify5 from 'fastify';
import { Hono } from 'hono';
import { controlAnswer, limitedAnswer, summaryOf } from './controls-routes.ts';
import type { Context } from 'hono';
import type { RateLimitControls } from '@floodgate/core/http';
// The Express 4 and Fastify 4 aliases are dev dependencies of the adapter packages.
import fastify4 from '../../../packages/fastify/node_modules/fastify4/fastify.js';

/**
 * One app per framework and major version, each with the same routes, so a suite drives the three
 * adapters alike:
 *   GET /rate_limit         the status route, ahead of the limit (Fastify: a route whose handler
 *                           is `fastify.floodgate.status`)
 *   GET /control/:op        peek, reset, block, unblock through the middleware's controls for the
 *                           calling request (`?cost=`, `?rule=`, `?ms=`), not limited; 400 with the
 *                           error's name, code and message when the control rejects
 *   GET /behind/rate_limit  the status route registered after the app-wide middleware (Fastify:
 *                           after the other routes; the plugin limits every route alike)
 *   GET /nested/rate_limit  the status route in a router (Express Router, Hono sub-app, Fastify
 *                           plugin with a prefix) mounted after the middleware
 *   GET /wrapped/rate_limit a limited route whose own handler calls the status handler: the
 *                           middleware cannot tell it is the status route
 *   GET /capture/:id        a critical route, in the app's counters (Express/Hono: the
 *                           middleware's `.critical`, ahead of it; Fastify: `config.rateLimit`)
 *   GET /late/:id           Express/Hono: `.critical` on a route behind the app-wide middleware
 *   GET anything else       limited; answers the decision the handler saw, after the refunds
 *                           `?refund=` asks for (`limitedAnswer`)
 */

export interface ControlledApp {
  url: string;
  /** The middleware's controls (Express/Hono middleware, `fastify.floodgate`). */
  controls: RateLimitControls<unknown>;
  close(): Promise<void>;
}

export interface Framework {
  name: string;
  /** Reads a request header from what user functions receive (`req`, `request`, `c`). */
  headerOf(req: unknown, name: string): string | undefined;
  /** `trustProxy`: the proxies to believe for X-Forwarded-For, as each framework takes them. */
  start(options: Record<string, unknown>, trustProxy?: string[]): Promise<ControlledApp>;
}

interface ExpressRequest {
  originalUrl: string;
  params: { op: string };
  rateLimit?: unknown;
  get(name: string): string | undefined;
}
interface ExpressResponse {
  status(code: number): ExpressResponse;
  json(body: unknown): void;
}

const express5: unknown = (await import('express' as string)).default;
const express4: unknown = (await import('../../../packages/express/node_modules/express4/index.js' as string)).default;

function listen(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      const close = () =>
        new Promise<void>((done) => {
          server.closeAllConnections();
          server.close(() => done());
        });
      resolve({ url: `http://127.0.0.1:${port}`, close });
    });
  });
}

// biome-ignore lint/suspicious/noExplicitAny: one framework entry serves two Express major versions.
function expressFramework(name: string, express: any): Framework {
  return {
    name,
    headerOf: (req, header) => (req as ExpressRequest).get(header),
    async start(options, trustProxy) {
      const app = express();
      if (trustProxy !== undefined) app.set('trust proxy', trustProxy);
      const limiter = rateLimit(options as Parameters<typeof rateLimit>[0]);
      const controls = limiter as unknown as RateLimitControls<unknown>;
      app.get('/rate_limit', expressStatus(limiter));
      app.get('/capture/:id', limiter.critical, async (req: ExpressRequest, res: ExpressResponse) =>
        res.json(await limitedAnswer(req.rateLimit, req.originalUrl)),
      );
      app.get('/control/:op', async (req: ExpressRequest, res: ExpressResponse) => {
        const answer = await controlAnswer(controls, req, req.params.op, req.originalUrl);
        res.status(answer.status).json(answer.body);
      });
      app.use(limiter);
      app.get('/behind/rate_limit', expressStatus(limiter));
      const nested = express.Router();
      nested.get('/rate_limit', expressStatus(limiter));
      app.use('/nested', nested);
      const wrapped = expressStatus(limiter);
      app.get('/wrapped/rate_limit', (req: unknown, res: unknown, next: unknown) =>
        wrapped(req as never, res as never, next as never),
      );
      app.get('/late/:id', limiter.critical, (req: ExpressRequest, res: ExpressResponse) =>
        res.json(summaryOf(req.rateLimit)),
      );
      app.get(/.*/, async (req: ExpressRequest, res: ExpressResponse) =>
        res.json(await limitedAnswer(req.rateLimit, req.originalUrl)),
      );
      return { ...(await listen(createServer(app))), controls };
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: one framework entry serves two Fastify major versions.
function fastifyFramework(name: string, fastify: any): Framework {
  return {
    name,
    headerOf: (req, header) => (req as { headers: Record<string, string | undefined> }).headers[header],
    async start(options, trustProxy) {
      const app = fastify({ forceCloseConnections: true, ...(trustProxy === undefined ? {} : { trustProxy }) });
      await app.register(floodgate, options);
      const controls = app.floodgate as RateLimitControls<unknown> & { status(req: unknown, reply: unknown): unknown };
      app.get('/rate_limit', app.floodgate.status);
      app.get('/wrapped/rate_limit', (request: unknown, reply: unknown) => controls.status(request, reply));
      await app.register(
        async (child: { get(path: string, handler: unknown): void }) => child.get('/rate_limit', app.floodgate.status),
        { prefix: '/nested' },
      );
      app.get(
        '/capture/:id',
        { config: { rateLimit: { priority: 'critical' } } },
        (request: { rateLimit?: unknown; url: string }) => limitedAnswer(request.rateLimit, request.url),
      );
      app.get(
        '/control/:op',
        { config: { rateLimit: false } },
        async (request: { url: string; params: { op: string } }, reply: { code(status: number): unknown }) => {
          const answer = await controlAnswer(controls, request, request.params.op, request.url);
          reply.code(answer.status);
          return answer.body;
        },
      );
      app.get('/behind/rate_limit', app.floodgate.status);
      app.get('/*', (request: { rateLimit?: unknown; url: string }) => limitedAnswer(request.rateLimit, request.url));
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}`, controls, close: () => app.close() };
    },
  };
}

const honoFramework: Framework = {
  name: 'hono',
  headerOf: (c, header) => (c as Context).req.header(header),
  async start(options, trustProxy) {
    const app = new Hono();
    const limiter = rateLimiter({ ...options, ...(trustProxy === undefined ? {} : { trustProxy }) });
    const controls = limiter as unknown as RateLimitControls<unknown>;
    app.get('/rate_limit', honoStatus(limiter));
    app.get('/capture/:id', limiter.critical, async (c) => c.json(await limitedAnswer(c.get('rateLimit'), c.req.url)));
    app.get('/control/:op', async (c) => {
      const answer = await controlAnswer(controls, c, c.req.param('op'), c.req.url);
      return c.json(answer.body, answer.status as 200);
    });
    app.use('*', limiter);
    app.get('/behind/rate_limit', honoStatus(limiter));
    const nested = new Hono();
    nested.get('/rate_limit', honoStatus(limiter));
    app.route('/nested', nested);
    const wrapped = honoStatus(limiter);
    app.get('/wrapped/rate_limit', (c, next) => wrapped(c, next));
    app.get('/late/:id', limiter.critical, (c) => c.json(summaryOf(c.get('rateLimit'))));
    app.get('*', async (c) => c.json(await limitedAnswer(c.get('rateLimit'), c.req.url)));
    return new Promise((resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
        const close = () =>
          new Promise<void>((done) => {
            (server as Server).closeAllConnections();
            server.close(() => done());
          });
        resolve({ url: `http://127.0.0.1:${info.port}`, controls, close });
      });
    });
  },
};

/**
 * Koa has no router of its own: the app routes by path, as a Koa app without @koa/router does.
 * It has no list of proxy addresses either: one trusted proxy (the loopback client) is
 * `app.proxy` with `maxIpsCount` 1. A status route behind the limiter cannot be told apart by it
 * (Koa has no routing table to read), so /behind and /nested are charged, given back and warned about.
 */
const koaFramework: Framework = {
  name: 'koa',
  headerOf: (ctx, header) => (ctx as Koa.Context).headers[header] as string | undefined,
  async start(options, trustProxy) {
    const app = new Koa();
    if (trustProxy !== undefined) {
      app.proxy = true;
      app.maxIpsCount = trustProxy.length;
    }
    const limiter = koaRateLimit(options as Parameters<typeof koaRateLimit>[0]);
    const controls = limiter as unknown as RateLimitControls<unknown>;
    const status = koaStatus(limiter);
    const answer = async (ctx: Koa.Context) => {
      ctx.body = await limitedAnswer(ctx.state.rateLimit, ctx.originalUrl);
    };
    app.use(async (ctx, next) => {
      const path = ctx.path;
      if (path === '/rate_limit') return status(ctx, next);
      if (path.startsWith('/capture/')) return limiter.critical(ctx, () => answer(ctx));
      if (path.startsWith('/control/')) {
        const result = await controlAnswer(controls, ctx, path.slice('/control/'.length), ctx.originalUrl);
        ctx.status = result.status;
        ctx.body = result.body;
        return;
      }
      return next();
    });
    app.use(limiter);
    app.use(async (ctx, next) => {
      const path = ctx.path;
      if (path === '/behind/rate_limit' || path === '/nested/rate_limit' || path === '/wrapped/rate_limit') {
        return status(ctx, next);
      }
      if (path.startsWith('/late/')) {
        return limiter.critical(ctx, async () => {
          ctx.body = summaryOf(ctx.state.rateLimit);
        });
      }
      return answer(ctx);
    });
    return { ...(await listen(createServer(app.callback()))), controls };
  },
};

/** Every framework and major version the adapters support. */
export const frameworks: Framework[] = [
  expressFramework('express 5', express5),
  expressFramework('express 4', express4),
  fastifyFramework('fastify 5', fastify5),
  fastifyFramework('fastify 4', fastify4),
  honoFramework,
  koaFramework,
];

/** Starts the apps, runs `body`, and closes them whatever happens. */
export async function withApps(
  starts: Promise<ControlledApp>[],
  body: (...apps: ControlledApp[]) => Promise<void>,
): Promise<void> {
  const settled = await Promise.allSettled(starts);
  const apps = settled.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
  try {
    const failed = settled.find((start) => start.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    await body(...apps);
  } finally {
    await Promise.all(apps.map((app) => app.close()));
  }
}
