import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { rateLimit } from '@floodgate/express';
import { floodgate } from '@floodgate/fastify';
import { rateLimiter } from '@floodgate/hono';
import { rateLimit as koaRateLimit } from '@floodgate/koa';
import Koa from 'koa';
import fastify5 from 'fastify';
import { Hono } from 'hono';
import type { RateLimitInfo } from '@floodgate/core';
// The Express 4 and Fastify 4 aliases are dev dependencies of the adapter packages; Express ships no types.
import fastify4 from '../../packages/fastify/node_modules/fastify4/fastify.js';

/** The little of Express the test app uses (the test package does not install @types/express). */
interface ExpressRequest {
  path: string;
  query: Record<string, unknown>;
  rateLimit?: RateLimitInfo | undefined;
  get(name: string): string | undefined;
}
interface ExpressResponse {
  status(code: number): ExpressResponse;
  type(type: string): ExpressResponse;
  send(body: string): void;
}

const express5: unknown = (await import('express' as string)).default;
const express4: unknown = (await import('../../packages/express/node_modules/express4/index.js' as string)).default;

/** One app: the middleware on every route, routes that override or opt out, and the proxy trust. */
export interface AppSpec {
  options: Record<string, unknown>;
  /** `/special` with its own options, or `false` for no limiting there. */
  special?: Record<string, unknown> | false;
  /** Express `trust proxy`, Fastify `trustProxy`, Hono `trustProxy`. */
  trustProxy?: number | boolean | string[];
  /** Paths ending in `/hold` wait for this before answering. */
  hold?: () => Promise<void>;
}

export interface Running {
  url: string;
  close(): Promise<void>;
}

export interface Driver {
  name: string;
  start(spec: AppSpec): Promise<Running>;
  /** Reads a request header from what user functions receive (`req`, `request`, `c`). */
  headerOf(req: unknown, name: string): string | undefined;
}

/** What every route answers: the decision the handler saw, after an optional `?refund=n`. */
async function describe(info: RateLimitInfo | undefined, refund: string | undefined): Promise<string> {
  if (info !== undefined && refund !== undefined) await info.refund(Number(refund));
  return JSON.stringify(info === undefined ? null : { remaining: info.remaining, cost: info.cost, rule: info.rule });
}

/** `/status/503` and `/status/503/hold` answer 503; anything else 200. */
function statusOf(path: string): number {
  const match = /^\/status\/(\d{3})/.exec(path);
  return match ? Number(match[1]) : 200;
}

function listen(server: Server): Promise<Running> {
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

// biome-ignore lint/suspicious/noExplicitAny: one driver serves two Express major versions.
function expressDriver(name: string, express: any): Driver {
  return {
    name,
    headerOf: (req, name) => (req as ExpressRequest).get(name),
    async start(spec) {
      const app = express();
      if (spec.trustProxy !== undefined) app.set('trust proxy', spec.trustProxy);
      const handle = async (req: ExpressRequest, res: ExpressResponse) => {
        if (req.path.endsWith('/hold')) await spec.hold?.();
        const status = statusOf(req.path);
        res
          .status(status)
          .type('application/json')
          .send(await describe(req.rateLimit, req.query.refund as string | undefined));
      };
      if (spec.special !== undefined) {
        app.get('/special', ...(spec.special === false ? [] : [rateLimit(spec.special)]), handle);
      }
      app.use(rateLimit(spec.options));
      app.get(/.*/, handle);
      return listen(createServer(app));
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: one driver serves two Fastify major versions.
function fastifyDriver(name: string, fastify: any): Driver {
  return {
    name,
    headerOf: (req, name) => (req as { headers: Record<string, string | undefined> }).headers[name],
    async start(spec) {
      // Like the other drivers, close drops open connections instead of waiting for the client's keep-alive.
      const app = fastify({
        forceCloseConnections: true,
        ...(spec.trustProxy === undefined ? {} : { trustProxy: spec.trustProxy }),
      });
      await app.register(floodgate, spec.options);
      const handle = async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
        const path = request.url.split('?')[0] as string;
        if (path.endsWith('/hold')) await spec.hold?.();
        const status = statusOf(path);
        const refund = (request.query as { refund?: string }).refund;
        return reply
          .code(status)
          .type('application/json')
          .send(await describe(request.rateLimit, refund));
      };
      if (spec.special !== undefined) app.get('/special', { config: { rateLimit: spec.special } }, handle);
      app.get('/*', handle);
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
    },
  };
}

const honoDriver: Driver = {
  name: 'hono',
  headerOf: (c, name) => (c as import('hono').Context).req.header(name),
  async start(spec) {
    const app = new Hono();
    const trust = spec.trustProxy === undefined ? {} : { trustProxy: spec.trustProxy };
    const handle = async (c: import('hono').Context) => {
      if (c.req.path.endsWith('/hold')) await spec.hold?.();
      const status = statusOf(c.req.path);
      c.header('Content-Type', 'application/json');
      return c.body(await describe(c.get('rateLimit'), c.req.query('refund')), status as 200);
    };
    if (spec.special !== undefined) {
      if (spec.special === false) app.get('/special', handle);
      else app.get('/special', rateLimiter({ ...spec.special, ...trust }), handle);
    }
    app.use('*', rateLimiter({ ...spec.options, ...trust }));
    app.get('*', handle);
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

/**
 * Koa has no list of proxy addresses: it believes `X-Forwarded-For` when `app.proxy` is on, keeping
 * the last `maxIpsCount` hops. One trusted proxy (the loopback test client) is one hop.
 */
function koaTrust(app: Koa, trustProxy: AppSpec['trustProxy']): void {
  if (trustProxy === undefined || trustProxy === false) return;
  app.proxy = true;
  app.maxIpsCount = trustProxy === true ? 0 : typeof trustProxy === 'number' ? trustProxy : trustProxy.length;
}

const koaDriver: Driver = {
  name: 'koa',
  headerOf: (ctx, name) => (ctx as Koa.Context).headers[name] as string | undefined,
  async start(spec) {
    const app = new Koa();
    koaTrust(app, spec.trustProxy);
    const handle = async (ctx: Koa.Context) => {
      if (ctx.path.endsWith('/hold')) await spec.hold?.();
      ctx.status = statusOf(ctx.path);
      ctx.type = 'application/json';
      ctx.body = await describe(ctx.state.rateLimit, ctx.query.refund as string | undefined);
    };
    const app_ = koaRateLimit(spec.options);
    const special = spec.special === undefined || spec.special === false ? undefined : koaRateLimit(spec.special);
    app.use((ctx, next) => {
      if (spec.special !== undefined && ctx.path === '/special')
        return special === undefined ? next() : special(ctx, next);
      return app_(ctx, next);
    });
    app.use(handle);
    return listen(createServer(app.callback()));
  },
};

/** Every framework and major version the adapters support. */
export const drivers: Driver[] = [
  expressDriver('express 5', express5),
  expressDriver('express 4', express4),
  fastifyDriver('fastify 5', fastify5),
  fastifyDriver('fastify 4', fastify4),
  honoDriver,
  koaDriver,
];

export interface Reply {
  status: number;
  contentType: string | null;
  headers: Record<string, string>;
  body: string;
}

/** Only the rate-limit fields, lower-cased, for exact comparison. */
export function limitHeaders(headers: Headers): Record<string, string> {
  const picked: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (/^(ratelimit|x-ratelimit|retry-after)/.test(name)) picked[name] = value;
  });
  return picked;
}

export async function get(base: string, path = '/', headers: Record<string, string> = {}): Promise<Reply> {
  const response = await fetch(base + path, { headers });
  const contentType = response.headers.get('content-type');
  return { status: response.status, contentType, headers: limitHeaders(response.headers), body: await response.text() };
}
