import { writeHeaders } from './headers';
import { WarningCode } from '../base/warnings';
import type { LimiterDecision } from '../limiter/limiter-decision';
import { RequestContext } from './context';
import type { Decision } from '../limiter/decision';
import type { Duration } from '../base/duration';
import type { ConsumeOptions, Limiter, RuleSelector } from '../limiter/types';
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
 * The caller's current standing under the rules of the gate's middleware that are its own (scope
 * `'client'`: a global or tenant layer's usage is other clients' traffic), charging nothing; sets
 * the usual rate-limit headers on `res` for those layers. The route has its own budget per client
 * address instead (see StatusBudget), counted here unless the middleware admitted the request to
 * it already; over it, or when a rule's algorithm function fails, the answer is the refusal the
 * middleware would give. If the middleware charged this request without seeing it was for the
 * status route (a handler it cannot find in the app's routes), that charge is given back: asking
 * for one's standing never costs a unit. Shadow rules are not reported.
 */
export async function statusReport<Req, Res>(
  gate: Gate<Req, Res>,
  req: Req,
  res: Res,
  earlier: unknown,
): Promise<StatusReport | Denial> {
  if (gate.owns(earlier) && earlier.finishOnce()) {
    gate.config.warn(
      WarningCode.statusBehind,
      "the status route runs behind its own middleware, which cannot tell that requests for it are for the status route (it is not in the app's own routes, or a handler calls it): a client that is limited gets 429 there instead of its standing. Mount the status route before the middleware, or directly on the app",
    );
    await Promise.all([earlier.release?.(), earlier.refund()]);
  }
  if (!gate.admittedToStatus(req)) {
    const spent = await gate.admitStatus(req, res);
    if (spent !== undefined) return spent;
  }
  const { engine, modes } = gate.config;
  let decision: LimiterDecision;
  try {
    decision = await engine.peekOwn(new RequestContext(req, gate));
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
