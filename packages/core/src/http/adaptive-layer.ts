import { isAdaptiveLayer } from '../adaptive/adaptive-concurrency';
import { InvalidOptionTypeError } from '../base/errors';
import type { AdaptiveConcurrency } from '../adaptive';
import type { Decision } from '../limiter/decision';

/**
 * Takes the adaptiveConcurrency() layer out of a middleware's `limits` (at most one: it measures
 * the whole process); the rest are the stored rules. `rest` is `limits` itself when there is none.
 */
export function splitAdaptive<Req>(
  where: string,
  limits: unknown,
): { adaptive: AdaptiveConcurrency<Req> | undefined; rest: unknown } {
  if (!Array.isArray(limits) || !limits.some(isAdaptiveLayer)) return { adaptive: undefined, rest: limits };
  const found = limits.filter(isAdaptiveLayer);
  if (found.length > 1) {
    throw new InvalidOptionTypeError(
      `${where}.limits holds ${found.length} adaptiveConcurrency() layers; give one (it measures the whole process)`,
    );
  }
  return { adaptive: found[0] as AdaptiveConcurrency<Req>, rest: limits.filter((layer) => !isAdaptiveLayer(layer)) };
}

/**
 * The decision behind a shed request: 503 with Retry-After and the `temporary-reduced-capacity`
 * problem type (`unavailable`), one layer counting concurrent requests so that RateLimit-Policy
 * says `qu="concurrent-requests"`. No rule was charged.
 */
export function shedDecision(layer: AdaptiveConcurrency<unknown>, now: number): Decision {
  const limit = layer.controller.limit;
  const retryAfter = layer.retryAfter;
  const resetAt = now + retryAfter;
  return {
    allowed: false,
    limit,
    remaining: 0,
    resetAt,
    retryAfter,
    delay: 0,
    rule: layer.name,
    results: [
      {
        rule: layer.name,
        kind: 'concurrency',
        allowed: false,
        limit,
        remaining: 0,
        resetAt,
        window: retryAfter,
        retryAfter,
        delay: 0,
        shadow: false,
      },
    ],
    degraded: false,
    shadowDenied: false,
    unavailable: true,
  };
}
