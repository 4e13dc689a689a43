import {
  ABORTED,
  checkStep,
  closeSignal,
  controlsOf,
  Denial,
  describeTrust,
  finishOnNode,
  Gate,
  inTurns,
  nodeHeader,
  parseHttpOptions,
  StatusOwners,
  statusReport,
} from '@floodgate/core/http';
import type { Decision, Priority, RateLimitInfo } from '@floodgate/core';
import type { GateResult, HttpDriver, HttpLimitOptions, RateLimitControls } from '@floodgate/core/http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { statusRouteFinder } from './status-route';

declare global {
  namespace Express {
    interface Request {
      /** The rate-limit decision for this request, with `refund(n)`; undefined when skipped. */
      rateLimit?: RateLimitInfo | undefined;
    }
  }
}

/** Answers a denied request yourself; the rate-limit headers are already set. */
export type RateLimitHandler = (req: Request, res: Response, next: NextFunction, decision: Decision) => unknown;

/** Options of `rateLimit`: the short form `{ limit, window }` or the full form with `limits`. */
export type RateLimitOptions = HttpLimitOptions<Request, Response, RateLimitHandler>;

const expressDriver: HttpDriver<Request, Response> = {
  header: (req, name) => nodeHeader(req.headers, name),
  ip: (req) => req.ip,
  setHeader(res, name, value) {
    if (!res.headersSent) res.setHeader(name, value);
  },
  trust: (req) => describeTrust(req.app.get('trust proxy')),
  trustHint: "app.set('trust proxy')",
  abortSignal: (_req, res) => closeSignal(res),
};

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/**
 * The middleware, which also carries its limiter's controls for a request: `peek(req)`,
 * `reset(req)`, `block(req, duration)`, `unblock(req)` and `limiter`, and `critical`.
 */
export type RateLimitMiddleware = Middleware &
  RateLimitControls<Request> & {
    /**
     * The same middleware (same limiter, same counts) deciding every request as critical: put it on
     * a route that may use the algorithms' `reserve`, ahead of the app-wide `app.use(limiter)`.
     * A rule with a `priority` function of its own still decides for itself.
     */
    readonly critical: Middleware;
  };

type Deny = (denial: Denial, req: Request, res: Response, next: NextFunction) => void;

/** Each middleware's gate and how it answers a denial, for rateLimitStatus. */
const owners = new StatusOwners<Request, Response, Deny>('rateLimit');

/**
 * Express middleware (Express 4 and 5). Options are validated here, once; the returned handler
 * never throws: a limiter failure follows `failMode`.
 *
 * @example
 * const limiter = rateLimit({ limit: 100, window: '1m' });
 * app.use(limiter);
 * app.post('/login/verified', (req, res) => limiter.reset(req).then(() => res.sendStatus(204)));
 */
export function rateLimit(options: RateLimitOptions): RateLimitMiddleware {
  const config = parseHttpOptions<Request, Response, RateLimitHandler>('rateLimit', options);
  const gate = new Gate(config, expressDriver);

  const apply = (result: GateResult, req: Request, res: Response, next: NextFunction): void => {
    if (result === ABORTED) return;
    if (result instanceof Denial) {
      deny(result, req, res, next);
      return;
    }
    if (result !== undefined) {
      req.rateLimit = result;
      if (res.closed) {
        // The client left while the limiter decided: nothing to run for it.
        gate.finish(result, req, res);
        return;
      }
      finishOnNode(gate, res, result, req, res);
    }
    next();
  };

  const deny: Deny = (denial, req, res, next) => {
    if (denial.body === undefined) {
      try {
        Promise.resolve(config.handler?.(req, res, next, denial.decision)).catch(next);
      } catch (error) {
        next(error);
      }
      return;
    }
    res.status(denial.status).type(denial.body.contentType).send(denial.body.text);
  };

  const decider = (priority: Priority | undefined) => checkStep(gate, priority, earlierDecision, apply);
  const middleware = owners.add(inTurns('rateLimit', decider(undefined)), gate, deny);
  return Object.assign(middleware, controlsOf(gate), { critical: inTurns('rateLimitCritical', decider('critical')) });
}

const earlierDecision = (req: Request): unknown => req.rateLimit;

/**
 * A route handler answering the caller's standing under the rules of `middleware` that are its
 * own (scope `'client'`), as GitHub's `/rate_limit` does: `{ resources: { <rule>: { limit,
 * remaining, used, reset } } }` (reset in epoch seconds) with the usual headers. It charges
 * nothing, and a client the middleware limits still gets its answer, wherever the route is mounted
 * on the app (or in a router on it): the middleware finds it in the app's routes and lets requests
 * for it through uncharged. The route has its own limit instead: 60 calls a minute per client
 * address on each instance.
 *
 * @example
 * app.use(limiter);
 * app.get('/rate_limit', rateLimitStatus(limiter));
 */
export function rateLimitStatus(middleware: RateLimitMiddleware): RequestHandler {
  const { gate, deny } = owners.of(middleware);
  const handlers = gate.statusHandlers;
  gate.statusRouted ??= statusRouteFinder((handle) => typeof handle === 'function' && handlers.has(handle));
  const rateLimitStatus: RequestHandler = (req, res, next) => {
    statusReport(gate, req, res, req.rateLimit).then((report) => {
      req.rateLimit = undefined;
      if (report instanceof Denial) deny(report, req, res, next);
      else res.set('Cache-Control', 'no-store').json(report);
    }, next);
  };
  gate.statusHandlers.add(rateLimitStatus);
  return rateLimitStatus;
}
