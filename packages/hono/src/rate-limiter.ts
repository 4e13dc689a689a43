import { createGate, parseHttpOptions, parsePeerOptions } from '@floodgate/core';
import type { ConnInfoLike, Decision, HttpLimitOptions, RateLimitInfo, TrustProxy } from '@floodgate/core';
import type { Context, MiddlewareHandler } from 'hono';

declare module 'hono' {
  interface ContextVariableMap {
    /** The rate-limit decision for this request, with `refund(n)`; undefined when skipped. */
    rateLimit: RateLimitInfo | undefined;
  }
}

/** Answers a denied request yourself; the rate-limit headers are already set on `c`. */
export type RateLimiterHandler = (c: Context, decision: Decision) => Response | Promise<Response>;

export type RateLimiterOptions = HttpLimitOptions<Context, Context, RateLimiterHandler> & {
  /** The runtime's `getConnInfo`; on @hono/node-server the socket address is used when it is not given. */
  getConnInfo?: (c: Context) => ConnInfoLike;
  /** Proxies to believe for `X-Forwarded-For`: a hop count or their addresses/CIDRs. Default false (never read it). */
  trustProxy?: TrustProxy;
};

/**
 * Hono middleware; edge-safe (no Node-only import). Options are validated here, once.
 *
 * @example
 * app.use(rateLimiter({ limit: 100, window: '1m', getConnInfo }));
 */
export function rateLimiter(options: RateLimiterOptions): MiddlewareHandler {
  const peer = parsePeerOptions<Context>('rateLimiter', options);
  const config = parseHttpOptions<Context, Context, RateLimiterHandler>('rateLimiter', options, [
    'getConnInfo',
    'trustProxy',
  ]);
  const check = createGate(config);

  return async function rateLimiter(c, next) {
    const signal = c.req.raw.signal;
    const verdict = await check({
      req: c,
      res: c,
      ip: peer.clientIp(c, () => nodeSocketAddress(c), c.req.header('x-forwarded-for')),
      header: (name) => c.req.header(name),
      trust: peer.trust,
      trustHint: 'the trustProxy option of rateLimiter',
      signal,
    });
    if (verdict.action === 'aborted') return c.body(null, 499 as 400);
    for (const [name, value] of Object.entries(verdict.headers)) c.header(name, value);
    if (verdict.action === 'deny') {
      if (verdict.body === undefined) return (config.handler as RateLimiterHandler)(c, verdict.decision);
      c.header('Content-Type', verdict.body.contentType);
      return c.body(verdict.body.text, verdict.status as 429);
    }
    c.set('rateLimit', verdict.info);
    const onAbort = () => verdict.finish();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await next();
    } finally {
      signal.removeEventListener('abort', onAbort);
      verdict.finish(c.res.status);
    }
  };
}

/** @hono/node-server puts the Node request on `c.env.incoming`; read its socket without importing Node. */
function nodeSocketAddress(c: Context): unknown {
  return (c.env as { incoming?: { socket?: { remoteAddress?: unknown } } } | undefined)?.incoming?.socket
    ?.remoteAddress;
}
