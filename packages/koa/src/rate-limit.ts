import {
  ABORTED,
  controlsOf,
  Denial,
  Gate,
  isThenable,
  parseHttpOptions,
  statusReport,
  TurnQueue,
} from '@floodgate/core/http';
import { InvalidOptionTypeError } from '@floodgate/core';
import type { Decision, Priority, RateLimitInfo } from '@floodgate/core';
import type { GateResult, HttpLimitOptions, LimiterDecision, RateLimitControls } from '@floodgate/core/http';
import type { Context, Middleware, Next } from 'koa';
import { koaDriver } from './driver';

/**
 * What the middleware puts on `ctx.state` (koa2-ratelimit's place): type your app with it,
 * `new Koa<RateLimitState>()`, to read `ctx.state.rateLimit` typed.
 */
export interface RateLimitState {
  /** The rate-limit decision for this request, with `refund(n)`; undefined when skipped. */
  rateLimit?: RateLimitInfo | undefined;
}

/** Answers a denied request yourself (set `ctx.status` and `ctx.body`); the rate-limit headers are already set. */
export type RateLimitHandler = (ctx: Context, decision: Decision) => unknown;

/** Options of `rateLimit`: the short form `{ limit, window }` or the full form with `limits`. */
export type RateLimitOptions = HttpLimitOptions<Context, Context, RateLimitHandler>;

/**
 * The middleware, which also carries its limiter's controls for a request: `peek(ctx)`,
 * `reset(ctx)`, `block(ctx, duration)`, `unblock(ctx)` and `limiter`, and `critical`.
 */
export type RateLimitMiddleware = Middleware &
  RateLimitControls<Context> & {
    /**
     * The same middleware (same limiter, same counts) deciding every request as critical: put it on
     * a route that may use the algorithms' `reserve`, ahead of the app-wide `app.use(limiter)`.
     * A rule with a `priority` function of its own still decides for itself.
     */
    readonly critical: Middleware;
  };

type Deny = (denial: Denial, ctx: Context) => Promise<void>;

/** Each middleware's gate and how it answers a denial, for rateLimitStatus. */
const gates = new WeakMap<object, { gate: Gate<Context, Context>; deny: Deny }>();

/**
 * Koa middleware (Koa 2 and 3). Options are validated here, once; the middleware never throws
 * into the request: a limiter failure follows `failMode`. The client address is `ctx.ip`, so it
 * follows `app.proxy`, `app.proxyIpHeader` and `app.maxIpsCount`.
 *
 * @example
 * const limiter = rateLimit({ limit: 100, window: '1m' });
 * app.use(limiter);
 */
export function rateLimit(options: RateLimitOptions): RateLimitMiddleware {
  const config = parseHttpOptions<Context, Context, RateLimitHandler>('rateLimit', options);
  const gate = new Gate(config, koaDriver);

  const apply = (result: GateResult, ctx: Context, next: Next): Promise<void> | undefined => {
    if (result === undefined) return next();
    if (result === ABORTED) {
      // The client is gone: run nothing for it and free the connection.
      ctx.respond = false;
      ctx.res.end();
      return undefined;
    }
    if (result instanceof Denial) return deny(result, ctx);
    ctx.state.rateLimit = result;
    if (gate.needsFinish(result)) finishAfter(result, ctx);
    return next();
  };

  const finishAfter = (decision: LimiterDecision, ctx: Context): void => {
    if (ctx.res.closed) gate.finish(decision, ctx, ctx);
    else gate.finishWith(ctx.res, decision, ctx, ctx);
  };

  const deny: Deny = async (denial, ctx) => {
    if (denial.body === undefined) {
      ctx.status = denial.status;
      await (config.handler as RateLimitHandler)(ctx, denial.decision);
      return;
    }
    ctx.status = denial.status;
    ctx.type = denial.body.contentType;
    ctx.body = denial.body.text;
  };

  const decider =
    (priority: Priority | undefined) =>
    (ctx: Context, next: Next): Promise<void> | undefined => {
      const result = gate.check(ctx, ctx, ctx.state.rateLimit, priority);
      return isThenable(result) ? result.then((settled) => apply(settled, ctx, next)) : apply(result, ctx, next);
    };
  const middleware = batched('rateLimit', decider(undefined));
  gates.set(middleware, { gate, deny });
  return Object.assign(middleware, controlsOf(gate), { critical: batched('rateLimitCritical', decider('critical')) });
}

type Decide = (ctx: Context, next: Next) => Promise<void> | undefined;

/** The middleware function: the requests of one turn are decided together (see TurnQueue). */
function batched(name: string, decide: Decide): Middleware {
  const turn = new TurnQueue((ctx: Context, next: Next, settle: (outcome: Promise<void> | undefined) => void) =>
    settle(decide(ctx, next)),
  );
  const middleware = (ctx: Context, next: Next): Promise<void> => {
    if (!turn.batching) return Promise.resolve(decide(ctx, next));
    return new Promise((resolve) => turn.push(ctx, next, resolve));
  };
  return Object.defineProperty(middleware, 'name', { value: name });
}

/**
 * A middleware answering the caller's standing under the rules of `middleware` that are its own
 * (scope `'client'`), as GitHub's `/rate_limit` does: `{ resources: { <rule>: { limit, remaining,
 * used, reset } } }` (reset in epoch seconds) with the usual headers, charging nothing. Koa runs
 * middleware in order and cannot tell the limiter where a route leads, so register the status
 * route before `app.use(limiter)` (a router of its own, or `ctx.path` as below), where a limited
 * client still reaches it; registered behind the limiter, the request is charged and then given
 * back, and a limited client gets 429 (`WARN_FLOODGATE_STATUS_BEHIND`). The route has its own
 * limit: 60 calls a minute per client address on each instance.
 *
 * @example
 * const status = rateLimitStatus(limiter);
 * app.use((ctx, next) => (ctx.path === '/rate_limit' ? status(ctx, next) : next()));
 * app.use(limiter);
 */
export function rateLimitStatus(middleware: RateLimitMiddleware): Middleware {
  const owner = gates.get(middleware);
  if (owner === undefined) {
    throw new InvalidOptionTypeError('rateLimitStatus needs a middleware made by rateLimit(), got something else');
  }
  const { gate, deny } = owner;
  const rateLimitStatus: Middleware = async (ctx) => {
    const report = await statusReport(gate, ctx, ctx, ctx.state.rateLimit);
    ctx.state.rateLimit = undefined;
    if (report instanceof Denial) return deny(report, ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = report;
  };
  return rateLimitStatus;
}
