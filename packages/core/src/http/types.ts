import type { Duration } from '../base/duration';
import type { StandardHeaders } from './headers';
import type { Decision } from '../limiter/decision';
import type { PartitionKeyOptions } from './partition-key';
import type { LimitsFeed } from '../limiter/live-limits';
import type { LimiterOptions, LimitRule, Priority, PriorityFunction } from '../limiter/types';
import type { Store } from '../store/store';
import type { FloodgateWarning } from '../base/warnings';

/** The decision a handler can read (`req.rateLimit`, `request.rateLimit`, `c.get('rateLimit')`). */
export type RateLimitInfo = Decision & {
  /** Units charged for this request (the `cost` option's answer). */
  readonly cost: number;
  /**
   * Gives `n` units back (default: all that is still charged), e.g. once the real cost is known: at
   * most what this request was charged, less what it already gave back. Rejects with
   * `ERR_FLOODGATE_INVALID_COST` for an `n` that is not a whole number >= 0; never for the store.
   */
  refund(n?: number): Promise<void>;
};

/**
 * The middleware's own options, shared by every adapter. `Req` is what the framework hands to user
 * functions (Express `req`, Fastify `request`, Hono `c`); `Res` the response side; `Handler` the
 * framework's own 429 handler signature.
 */
export interface HttpOwnOptions<Req = unknown, Res = unknown, Handler = never> {
  /** Short form: requests per `window` per client IP (sliding window, memory store unless `store`). */
  limit?: number;
  window?: Duration;
  /** Full form: the layers, e.g. from `layered(...)`. */
  limits?: readonly LimitRule<Req>[] | LimitsFeed<Req>;
  store?: Store;
  /** Start of every key. Default `'fg'`. */
  prefix?: string;
  /** Time source in epoch ms for the limiter and the headers. Default `Date.now`. */
  clock?: () => number;
  /** Units this request costs. Default 1. */
  cost?: (req: Req) => number | Promise<number>;
  /** Return true to let the request through without counting it or sending headers. */
  skip?: (req: Req) => boolean | Promise<boolean>;
  /** Addresses or CIDRs (IPv4 or IPv6) never limited, or a function deciding it. */
  allowList?: readonly string[] | ((req: Req) => boolean | Promise<boolean>);
  /** Default `'draft-8'`. */
  standardHeaders?: StandardHeaders;
  /** `X-RateLimit-Limit/-Remaining/-Reset`. Default true. */
  legacyHeaders?: boolean;
  /** draft-11: `pk` on each item, a keyed hash of the layer's key (never the key itself). Default off. */
  partitionKey?: PartitionKeyOptions | false;
  /** Status of a denied request. Default 429. */
  statusCode?: number;
  /** Body of a denied request instead of the problem+json default: text, a JSON value, or a function making one. */
  message?: string | object | ((req: Req, decision: Decision) => string | object | Promise<string | object>);
  /** Answers a denied request yourself (headers are already set). */
  handler?: Handler;
  /** Shaping: the longest wait before the handler; a longer `delay` is answered with a 429. Default: no cap. */
  maxDelay?: Duration;
  /** Give the unit back when the response status is >= 400 (or `requestWasSuccessful` says no). */
  skipFailedRequests?: boolean;
  /** Give the unit back when the response succeeded. */
  skipSuccessfulRequests?: boolean;
  /** Default: status < 400. */
  requestWasSuccessful?: (req: Req, res: Res) => boolean | Promise<boolean>;
  /**
   * Which requests may use the algorithms' `reserve`: a function of the request (every rule's,
   * unless a rule has its own), or a word for every request this middleware decides: `'critical'`
   * on a route that is critical (Fastify `config.rateLimit`, or a middleware of its own). Decide it
   * from what the server established, never from the URL or a header. Default: every request normal.
   */
  priority?: Priority | PriorityFunction<Req>;
  /** Where misconfiguration warnings go. Default `console.warn`. */
  onWarning?: (warning: FloodgateWarning) => void;
  /** What to do when the limiter cannot decide (store out of reach, a key function or cost that throws). Default 'local'. */
  failMode?: 'local' | 'open' | 'closed';
}

/**
 * Everything a middleware accepts: its own options plus createLimiter's resilience options
 * (`timeout`, `instances`, `breaker`, `denyCache`, the event hooks), which are passed through unchanged.
 */
export type HttpLimitOptions<Req = unknown, Res = unknown, Handler = never> = HttpOwnOptions<Req, Res, Handler> &
  Omit<Partial<LimiterOptions<Req>>, keyof HttpOwnOptions<Req, Res, Handler>>;
