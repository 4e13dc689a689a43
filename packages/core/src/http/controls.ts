import { writeHeaders } from '../headers';
import { LimiterDecision } from '../limiter-decision';
import { RequestContext } from './context';
import type { Decision } from '../decision';
import type { Duration } from '../duration';
import type { ConsumeOptions, Limiter, RuleSelector } from '../limiter-types';
import { refused } from './gate';
import type { Gate } from './gate';
import type { Denial } from './render';

/**
 * What a middleware offers besides limiting, for its own limiter and keys: the request is keyed
 * exactly as the middleware keys it (same rules, same client address).
 */
export interface RateLimitControls<Req> {
  /** The middleware's limiter: consume, refund, peek, reset, block, unblock, close. */
  readonly limiter: Limiter<Req>;
  /** The Decision this request would get now; charges nothing. */
  peek(req: Req, options?: ConsumeOptions): Promise<Decision>;
  /** Clears this request's keys (every rule, or `{ rule }`): counts, blocks, penalty history. */
  reset(req: Req, options?: RuleSelector): Promise<void>;
  /** Denies every request on this request's keys for `duration`, on every instance sharing the store. */
  block(req: Req, duration: Duration, options?: RuleSelector): Promise<void>;
  /** Lifts a block and forgets the penalty history. */
  unblock(req: Req, options?: RuleSelector): Promise<void>;
}

/** The controls of the middleware whose gate this is. */
export function controlsOf<Req, Res>(gate: Gate<Req, Res>): RateLimitControls<Req> {
  const limiter = gate.config.limiter;
  const ctx = (req: Req) => new RequestContext(req, gate);
  return {
    limiter,
    peek: (req, options) => limiter.peek(ctx(req), options),
    reset: (req, options) => limiter.reset(ctx(req), options),
    block: (req, duration, options) => limiter.block(ctx(req), duration, options),
    unblock: (req, options) => limiter.unblock(ctx(req), options),
  };
}

/** One rule's standing in the status route's body, as GitHub's /rate_limit reports it. */
export interface StatusResource {
  limit: number;
  remaining: number;
  used: number;
  /** Epoch seconds when the rule is fully replenished. */
  reset: number;
}

/** The status route's answer: `{ resources: { <rule>: { limit, remaining, used, reset } } }`. */
export interface StatusReport {
  resources: Record<string, StatusResource>;
}

/**
 * The caller's current standing under every rule of the gate's middleware, charging nothing (or
 * the refusal the middleware would answer, when a rule's algorithm function fails);
 * sets the usual rate-limit headers on `res`. If the same middleware already charged this
 * request (the status route is mounted behind it), that charge is given back first: asking for
 * one's standing never costs a unit. Shadow rules are not reported.
 */
export async function statusReport<Req, Res>(
  gate: Gate<Req, Res>,
  req: Req,
  res: Res,
  earlier: unknown,
): Promise<StatusReport | Denial> {
  if (earlier instanceof LimiterDecision && earlier.ownedBy(gate) && earlier.finishOnce()) {
    await Promise.all([earlier.release?.(), earlier.refund()]);
  }
  const { engine, modes } = gate.config;
  let decision: LimiterDecision;
  try {
    decision = await engine.peek(new RequestContext(req, gate), 0);
  } catch (error) {
    // A rule the request cannot be keyed or costed by is refused here as it is by the middleware.
    if (refused(error)) return gate.refuse(req, res);
    throw error;
  }
  writeHeaders(decision, modes, engine.clock(), res, gate.driver.setHeader);
  const resources: Record<string, StatusResource> = {};
  for (const layer of decision.results) {
    if (layer.shadow) continue;
    resources[layer.rule] = {
      limit: layer.limit,
      remaining: layer.remaining,
      used: Math.max(0, layer.limit - layer.remaining),
      reset: Math.ceil(layer.resetAt / 1000),
    };
  }
  return { resources };
}
