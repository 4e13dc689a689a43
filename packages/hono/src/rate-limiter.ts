import {
  ABORTED,
  closedStatus,
  Denial,
  Gate,
  isThenable,
  nodeHeader,
  parseHttpOptions,
  parsePeerOptions,
  TurnQueue,
} from '@floodgate/core/http';
import type { Decision, RateLimitInfo } from '@floodgate/core';
import type {
  ConnInfoLike,
  GateResult,
  HttpDriver,
  HttpLimitOptions,
  LimiterDecision,
  NodeHeaders,
  NodeResponse,
  TrustProxy,
} from '@floodgate/core/http';
import type { Context, MiddlewareHandler, Next } from 'hono';

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
 * Hono middleware; edge-safe (no Node-only import). Options are validated here, once.
 *
 * @example
 * app.use(rateLimiter({ limit: 100, window: '1m', getConnInfo }));
 */
export function rateLimiter(options: RateLimiterOptions): MiddlewareHandler {
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
      outgoing.once('finish', () => gate.finish(decision, c, c, outgoing.statusCode));
      outgoing.once('close', () => gate.finish(decision, c, c, closedStatus(outgoing)));
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

  const decide = (c: Context, next: Next): ReturnType<MiddlewareHandler> => {
    const result = gate.check(c, c, c.get('rateLimit'));
    return isThenable(result) ? result.then((settled) => apply(settled, c, next)) : apply(result, c, next);
  };
  const turn = new TurnQueue((c: Context, next: Next, settle: (outcome: ReturnType<MiddlewareHandler>) => void) =>
    settle(decide(c, next)),
  );

  return function rateLimiter(c, next) {
    if (!turn.batching) return decide(c, next);
    return new Promise((resolve) => turn.push(c, next, resolve));
  };
}
