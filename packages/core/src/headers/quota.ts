import type { Decision, LayerResult } from '../decision';
import type { AlgorithmKind } from '../algorithms/types';

/** One layer's numbers as the headers state them: whole seconds, never negative. */
export interface Quota {
  name: string;
  kind: AlgorithmKind;
  limit: number;
  /** The window in seconds, rounded up. */
  window: number;
  remaining: number;
  /** Seconds until the quota resets; for a denied layer, until the request would be allowed. */
  reset: number;
  /** The same instant as `reset`, as Unix epoch seconds rounded up. */
  resetEpoch: number;
}

/** Retry-After in whole seconds: rounded up, at least 1. */
export function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}

/** Every layer of the decision, the binding one (decision.rule) first, the others in rule order. */
export function quotasOf(decision: Decision, now: number): Quota[] {
  const binding = decision.results.filter((layer) => layer.rule === decision.rule);
  const others = decision.results.filter((layer) => layer.rule !== decision.rule);
  return [...binding, ...others].map((layer) => quotaOf(layer, now));
}

/**
 * A denied layer advertises its reset as the moment it would allow the request: the IETF draft
 * says Retry-After should not point earlier than the reset, and a layer's full replenishment can
 * lie well after its first free unit.
 */
function quotaOf(layer: LayerResult, now: number): Quota {
  const reset = layer.allowed
    ? Math.max(0, Math.ceil((layer.resetAt - now) / 1000))
    : retryAfterSeconds(layer.retryAfter);
  const resetAt = Math.max(now, layer.allowed ? layer.resetAt : now + layer.retryAfter);
  return {
    name: layer.rule,
    kind: layer.kind,
    limit: layer.limit,
    window: Math.ceil(layer.window / 1000),
    remaining: Math.max(0, layer.remaining),
    reset,
    resetEpoch: Math.ceil(resetAt / 1000),
  };
}
