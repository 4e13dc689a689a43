import {
  ABORTED,
  controlsOf,
  Denial,
  Gate,
  isThenable,
  nodeHeader,
  parseHttpOptions,
  parsePeerOptions,
  statusReport,
  TurnQueue,
} from '@floodgate/core/http';
import { InvalidOptionTypeError } from '@floodgate/core';
import type { Decision, Priority, RateLimitInfo } from '@floodgate/core';
import type {
  ConnInfoLike,
  GateResult,
  HttpDriver,
  HttpLimitOptions,
  LimiterDecision,
  NodeHeaders,
  NodeResponse,
  RateLimitControls,
  TrustProxy,
} from '@floodgate/core/http';
import type { Context, Handler, MiddlewareHandler, Next } from 'hono';

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

/** What @hono/node-server puts on `c.env`: the Node request, read without importing Node. */
interface NodeBindings {
  incoming?: { headers?: NodeHeaders; socket?: { remoteAddress?: unknown } };
  outgoing?: NodeResponse;
}

function nodeRequest(c: Context): NodeBindings['incoming'] {
  return (c.env as NodeBindings | undefined)?.incoming;
}

/**
 * A request header. On @hono/node-server the Node request's own header object is read: asking
 * `c.req` would build a Fetch `Headers` for every request.
 */
function header(c: Context, name: string): string | undefined {
  const headers = nodeRequest(c)?.headers;
  return typeof headers === 'object' && headers !== null ? nodeHeader(headers, name) : c.req.header(name);
}

/**
 * The middleware, which also carries its limiter's controls for a request: `peek(c)`, `reset(c)`,
 * `block(c, duration)`, `unblock(c)` and `limiter`, and `critical`.
 */
export type RateLimiterMiddleware = MiddlewareHandler &
  RateLimitControls<Context> & {
    /**
     * The same middleware (same limiter, same counts) deciding every request as critical: put it on
     * a route that may use the algorithms' `reserve`, registered before the app-wide
     * `app.use(limiter)`. A rule with a `priority` function of its own still decides for itself.
     */
    readonly critical: MiddlewareHandler;
  };

/** Each middleware's gate and how it answers a denial, for rateLimitStatus. */
const gates = new WeakMap<
  object,
  { gate: Gate<Context, Context>; deny: (denial: Denial, c: Context) => Promise<Response> }
>();

/**
 * Hono middleware; edge-safe (no Node-only import). Options are validated here, once.
 *
 * @example
 * const limiter = rateLimiter({ limit: 100, window: '1m', getConnInfo });
 * app.use(limiter);
 * app.post('/captcha/passed', async (c) => { await limiter.reset(c); return c.body(null, 204); });
 */
export function rateLimiter(options: RateLimiterOptions): RateLimiterMiddleware {
  const config = parseHttpOptions<Context, Context, RateLimiterHandler>('rateLimiter', options, [
    'getConnInfo',
    'trustProxy',
  ]);
  const peer = parsePeerOptions<Context>(
    'rateLimiter',
    options,
    { socketAddress: (c) => nodeRequest(c)?.socket?.remoteAddress, forwardedFor: (c) => header(c, 'x-forwarded-for') },
    config.warn,
  );
  const driver: HttpDriver<Context, Context> = {
    header,
    ip: peer.clientIp,
    setHeader(c, name, value) {
      c.header(name, value);
    },
    trust: () => peer.trust,
    trustHint: 'the trustProxy option of rateLimiter',
    abortSignal: (c) => c.req.raw.signal,
  };
  const gate = new Gate(config, driver);

  const apply = (result: GateResult, c: Context, next: Next): ReturnType<MiddlewareHandler> => {
    if (result === undefined) return next();
    if (result === ABORTED) return Promise.resolve(c.body(null, 499 as 400));
    if (result instanceof Denial) return deny(result, c);
    c.set('rateLimit', result);
    return gate.needsFinish(result) ? finishAfter(result, c, next) : next();
  };

  const deny = async (denial: Denial, c: Context): Promise<Response> => {
    if (denial.body === undefined) return (config.handler as RateLimiterHandler)(c, denial.decision);
    c.header('Content-Type', denial.body.contentType);
    return c.body(denial.body.text, denial.status as 429);
  };

  /**
   * Runs the rest of the chain, then the after-response work (also if the client leaves first). On
   * Node the response itself says when it is done: a streamed body is still being sent (and may
   * fail, or be cut off by the client) after next() returns.
   */
  const finishAfter = async (decision: LimiterDecision, c: Context, next: Next): Promise<void> => {
    const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
    if (typeof outgoing?.once === 'function') {
      gate.finishWith(outgoing, decision, c, c);
      return next();
    }
    const signal = c.req.raw.signal;
    const onAbort = () => gate.finish(decision, c, c);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await next();
    } finally {
      signal.removeEventListener('abort', onAbort);
      gate.finish(decision, c, c, c.res.status);
    }
  };

  const decider =
    (priority: Priority | undefined) =>
    (c: Context, next: Next): ReturnType<MiddlewareHandler> => {
      const result = gate.check(c, c, c.get('rateLimit'), priority);
      return isThenable(result) ? result.then((settled) => apply(settled, c, next)) : apply(result, c, next);
    };
  const middleware = batched(decider(undefined));
  gates.set(middleware, { gate, deny });
  return Object.assign(middleware, controlsOf(gate), { critical: batched(decider('critical')) });
}

/** The middleware function: on Node, the requests of one turn are decided together (see TurnQueue). */
function batched(decide: (c: Context, next: Next) => ReturnType<MiddlewareHandler>): MiddlewareHandler {
  const turn = new TurnQueue((c: Context, next: Next, settle: (outcome: ReturnType<MiddlewareHandler>) => void) =>
    settle(decide(c, next)),
  );
  return function rateLimiter(c, next) {
    // Only on @hono/node-server: in workerd (even with nodejs_compat's setImmediate) a promise
    // settled from another request's context is cancelled as hung.
    if (!turn.batching || nodeRequest(c) === undefined) return decide(c, next);
    return new Promise((resolve) => turn.push(c, next, resolve));
  };
}

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
  const owner = gates.get(middleware);
  if (owner === undefined) {
    throw new InvalidOptionTypeError('rateLimitStatus needs a middleware made by rateLimiter(), got something else');
  }
  const { gate, deny } = owner;
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
