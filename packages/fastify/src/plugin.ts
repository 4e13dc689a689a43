import { createGate, nodeHeader, describeTrust, mergeRouteOptions, parseHttpOptions } from '@floodgate/core';
import fp from 'fastify-plugin';
import type { Decision, HttpLimitOptions, ProxyTrust, RateLimitInfo } from '@floodgate/core';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';

/** Answers a denied request yourself; the rate-limit headers are already set. */
export type FloodgateHandler = (request: FastifyRequest, reply: FastifyReply, decision: Decision) => unknown;

/** Options of the plugin: the short form `{ limit, window }` or the full form with `limits`. */
export type FloodgateOptions = HttpLimitOptions<FastifyRequest, FastifyReply, FloodgateHandler>;

/** A route's `config.rateLimit`: overrides the plugin's options (own layers get their own prefix). */
export type FloodgateRouteOptions = Partial<FloodgateOptions>;

declare module 'fastify' {
  interface FastifyRequest {
    /** The rate-limit decision for this request, with `refund(n)`; undefined when skipped. */
    rateLimit: RateLimitInfo | undefined;
  }
  interface FastifyContextConfig {
    rateLimit?: FloodgateRouteOptions | false;
  }
}

/** What the app's `trustProxy` means for the warnings, as read once at registration. */
interface TrustSetting {
  trust: ProxyTrust | undefined;
  /** A hop count, which Fastify 5 ignores (it fails closed) and Fastify 4 honours. */
  hopCount: boolean;
}

/**
 * The trust in effect for one request. A hop count Fastify ignored leaves `request.ips` with the
 * socket's peer alone although X-Forwarded-For was sent: every client behind the proxy then shares
 * its address, as with no trust at all, so it is reported as 'none'.
 */
function effectiveTrust(setting: TrustSetting, request: FastifyRequest): ProxyTrust {
  if (setting.trust === undefined) return request.ips === undefined ? 'none' : 'some';
  if (setting.hopCount && request.headers['x-forwarded-for'] !== undefined && (request.ips?.length ?? 0) <= 1) {
    return 'none';
  }
  return setting.trust;
}

function gateHook(options: unknown, where: string, trust: TrustSetting): onRequestAsyncHookHandler {
  const config = parseHttpOptions<FastifyRequest, FastifyReply, FloodgateHandler>(where, options);
  const check = createGate(config);
  return async function floodgateOnRequest(request, reply) {
    const gone = new AbortController();
    const onClose = () => gone.abort();
    reply.raw.once('close', onClose);
    const verdict = await check({
      req: request,
      res: reply,
      ip: request.ip,
      header: (name) => nodeHeader(request.headers, name),
      trust: effectiveTrust(trust, request),
      trustHint: trust.hopCount
        ? 'the Fastify trustProxy option to the proxy addresses (Fastify 5 ignores a hop count)'
        : 'the Fastify trustProxy option',
      signal: gone.signal,
    });
    reply.raw.off('close', onClose);
    if (verdict.action === 'aborted') {
      // The client is gone: end the exchange here so nothing runs for it and the connection is freed.
      reply.hijack();
      reply.raw.end();
      return;
    }
    reply.headers(verdict.headers);
    if (verdict.action === 'deny') {
      if (verdict.body === undefined) await config.handler?.(request, reply, verdict.decision);
      else reply.code(verdict.status).type(verdict.body.contentType).send(verdict.body.text);
      return reply;
    }
    request.rateLimit = verdict.info;
    if (reply.raw.closed) return verdict.finish();
    reply.raw.once('finish', () => verdict.finish(reply.raw.statusCode));
    reply.raw.once('close', () => verdict.finish(reply.raw.writableFinished ? reply.raw.statusCode : undefined));
  };
}

async function plugin(fastify: FastifyInstance, options: FloodgateOptions): Promise<void> {
  const trust = trustSetting(fastify);
  const appHook = gateHook(options, 'floodgate', trust);
  // One gate per route options object: the HEAD route Fastify adds shares its GET route's counters.
  const routeHooks = new WeakMap<object, onRequestAsyncHookHandler>();
  fastify.decorateRequest('rateLimit', undefined);
  fastify.addHook('onRoute', (route) => {
    const own = route.config?.rateLimit;
    if (own === false) return;
    const where = `config.rateLimit of ${route.method} ${route.url}`;
    let hook = own === undefined ? appHook : routeHooks.get(own);
    if (hook === undefined) {
      const merged = mergeRouteOptions(where, options as Record<string, unknown>, own, String(route.url));
      hook = gateHook(merged, where, trust);
      if (typeof own === 'object' && own !== null) routeHooks.set(own, hook);
    }
    const existing = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [hook, ...existing] as NonNullable<typeof route.onRequest>;
  });
}

/**
 * Fastify keeps its construction options under a private symbol (the same in v4 and v5); read
 * `trustProxy` from there so `true` can be told apart from a hop count. `trust` is undefined if not found.
 */
function trustSetting(fastify: FastifyInstance): TrustSetting {
  for (let scope: object | null = fastify; scope !== null; scope = Object.getPrototypeOf(scope)) {
    const key = Object.getOwnPropertySymbols(scope).find((symbol) => symbol.description === 'fastify.options');
    if (key === undefined) continue;
    const setting = (scope as Record<symbol, { trustProxy?: unknown }>)[key]?.trustProxy;
    return { trust: describeTrust(setting), hopCount: typeof setting === 'number' && setting > 0 };
  }
  return { trust: undefined, hopCount: false };
}

/**
 * Fastify plugin (Fastify 4 and 5). Register it before the routes it should limit; a route
 * overrides it with `config: { rateLimit: { ... } }` or opts out with `config: { rateLimit: false }`.
 *
 * @example
 * await app.register(floodgate, { limit: 100, window: '1m' });
 */
export const floodgate = fp(plugin, { fastify: '4.x || 5.x', name: '@floodgate/fastify' });
