import {
  ABORTED,
  controlsOf,
  Denial,
  finishAround,
  Gate,
  isThenable,
  parseHttpOptions,
  parsePeerOptions,
  StatusOwners,
  TurnQueue,
} from '@floodgate/core/http';
import type { Decision, Priority, RateLimitInfo } from '@floodgate/core';
import type {
  ConnInfoLike,
  GateResult,
  HttpDriver,
  HttpLimitOptions,
  LimiterDecision,
  RateLimitControls,
  TrustProxy,
} from '@floodgate/core/http';
import type { Context, MiddlewareHandler, Next } from 'hono';
import { header, nodeRequest } from './node-request';
import type { NodeBindings } from './node-request';

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
export const owners = new StatusOwners<Context, Context, (denial: Denial, c: Context) => Promise<Response>>(
  'rateLimiter',
);

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
    return finishAround(gate, decision, c, c, c.req.raw.signal, next, responseStatus);
  };

  const decider =
    (priority: Priority | undefined) =>
    (c: Context, next: Next): ReturnType<MiddlewareHandler> => {
      const result = gate.check(c, c, c.get('rateLimit'), priority);
      return isThenable(result) ? result.then((settled) => apply(settled, c, next)) : apply(result, c, next);
    };
  const middleware = owners.add(batched(decider(undefined)), gate, deny);
  return Object.assign(middleware, controlsOf(gate), { critical: batched(decider('critical')) });
}

const responseStatus = (c: Context): number => c.res.status;

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
