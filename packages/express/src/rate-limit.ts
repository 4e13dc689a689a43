import { createGate, nodeHeader, describeTrust, parseHttpOptions } from '@floodgate/core';
import type { Decision, HttpLimitOptions, RateLimitInfo, Verdict } from '@floodgate/core';
import type { NextFunction, Request, Response } from 'express';

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

/**
 * Express middleware (Express 4 and 5). Options are validated here, once; the returned handler
 * never throws: a limiter failure follows `failMode`.
 *
 * @example
 * app.use(rateLimit({ limit: 100, window: '1m' }));
 */
export function rateLimit(options: RateLimitOptions) {
  const config = parseHttpOptions<Request, Response, RateLimitHandler>('rateLimit', options);
  const check = createGate(config);

  return async function rateLimit(req: Request, res: Response, next: NextFunction): Promise<void> {
    const gone = new AbortController();
    const onClose = () => gone.abort();
    res.once('close', onClose);
    const verdict = await check({
      req,
      res,
      ip: req.ip,
      header: (name) => nodeHeader(req.headers, name),
      trust: describeTrust(req.app.get('trust proxy')),
      trustHint: "app.set('trust proxy')",
      signal: gone.signal,
    });
    res.off('close', onClose);
    if (verdict.action === 'aborted') return;
    if (!res.headersSent) res.set(verdict.headers);
    if (verdict.action === 'deny') return deny(verdict, req, res, next);
    req.rateLimit = verdict.info;
    if (res.closed) return verdict.finish();
    res.once('finish', () => verdict.finish(res.statusCode));
    res.once('close', () => verdict.finish(res.writableFinished ? res.statusCode : undefined));
    next();
  };

  function deny(verdict: Extract<Verdict, { action: 'deny' }>, req: Request, res: Response, next: NextFunction) {
    if (verdict.body === undefined) {
      try {
        return void Promise.resolve(config.handler?.(req, res, next, verdict.decision)).catch(next);
      } catch (error) {
        return next(error);
      }
    }
    res.status(verdict.status).type(verdict.body.contentType).send(verdict.body.text);
  }
}
