import { Denial, statusReport } from '@floodgate/core/http';
import type { Context, Handler } from 'hono';
import { owners } from './rate-limiter';
import type { RateLimiterMiddleware } from './rate-limiter';

/**
 * Whether Hono routes `c` to one of `handlers`: it matches every route of a request before the
 * first runs, so the middleware can tell a request for the status route and let it through.
 */
function routedTo(handlers: WeakSet<object>): (c: Context) => boolean {
  return (c) => {
    const routes = (c.req as { matchedRoutes?: unknown }).matchedRoutes;
    return Array.isArray(routes) && routes.some((route: { handler?: object }) => handlers.has(route.handler ?? {}));
  };
}

/**
 * A handler answering the caller's standing under the rules of `middleware` that are its own
 * (scope `'client'`), as GitHub's `/rate_limit` does: `{ resources: { <rule>: { limit, remaining,
 * used, reset } } }` (reset in epoch seconds) with the usual headers. It charges nothing, and a
 * client the middleware limits still gets its answer wherever the route is registered: the
 * middleware sees that Hono routes the request to it and lets it through uncharged. The route has
 * its own limit instead: 60 calls a minute per client address on each instance.
 *
 * @example
 * app.use(limiter);
 * app.get('/rate_limit', rateLimitStatus(limiter));
 */
export function rateLimitStatus(middleware: RateLimiterMiddleware): Handler {
  const { gate, deny } = owners.of(middleware);
  gate.statusRouted ??= routedTo(gate.statusHandlers);
  const rateLimitStatus: Handler = async (c) => {
    const report = await statusReport(gate, c, c, c.get('rateLimit'));
    c.set('rateLimit', undefined);
    if (report instanceof Denial) return deny(report, c);
    c.header('Cache-Control', 'no-store');
    return c.json(report);
  };
  gate.statusHandlers.add(rateLimitStatus);
  return rateLimitStatus;
}
