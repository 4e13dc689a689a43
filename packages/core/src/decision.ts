import type { AlgorithmKind } from './algorithms/types';

/** One layer's own numbers within a Decision. */
export interface LayerResult {
  /** The rule's name (`ip`, `user`, ...). */
  rule: string;
  kind: AlgorithmKind;
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch ms when this layer is fully replenished. */
  resetAt: number;
  /** The window the quota applies to, in ms. */
  window: number;
  retryAfter: number;
  delay: number;
}

/**
 * The answer for one request. The top-level numbers are the binding layer's: the one that denied
 * (the longest wait if several did), or else the one with the least remaining.
 */
export interface Decision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch ms. */
  resetAt: number;
  /** ms until the same request would be allowed; 0 when allowed. */
  retryAfter: number;
  /** ms the caller should wait before handling the request (shaping); 0 otherwise. */
  delay: number;
  /** The binding layer's name; undefined when no layer applied to the request. */
  rule: string | undefined;
  /** Every applicable layer, in the order the rules were given. */
  results: LayerResult[];
  /** True when the shared store was out of reach and the decision was made without it. */
  degraded: boolean;
  /**
   * True when the store was out of reach and `failMode: 'closed'` denied the request: adapters
   * answer 503 (not 429) with Retry-After.
   */
  unavailable?: boolean;
  /** Present when the request holds a concurrency slot: frees it; calling it again does nothing. */
  release?: () => Promise<void>;
}

/** Picks the binding layer and folds every layer's numbers into one Decision. */
export function combine(results: LayerResult[], degraded: boolean): Decision {
  const allowed = results.every((result) => result.allowed);
  let binding: LayerResult | undefined;
  for (const result of results) {
    if (binding === undefined) binding = result;
    else if (allowed ? result.remaining < binding.remaining : bindsHarder(result, binding)) binding = result;
  }
  if (binding === undefined) {
    return {
      allowed: true,
      limit: 0,
      remaining: 0,
      resetAt: 0,
      retryAfter: 0,
      delay: 0,
      rule: undefined,
      results,
      degraded,
    };
  }
  return {
    allowed,
    limit: binding.limit,
    remaining: binding.remaining,
    resetAt: binding.resetAt,
    retryAfter: allowed ? 0 : Math.max(...results.map((result) => result.retryAfter)),
    delay: allowed ? Math.max(...results.map((result) => result.delay)) : 0,
    rule: binding.rule,
    results,
    degraded,
  };
}

function bindsHarder(candidate: LayerResult, current: LayerResult): boolean {
  if (candidate.allowed !== current.allowed) return !candidate.allowed;
  return candidate.retryAfter > current.retryAfter;
}
