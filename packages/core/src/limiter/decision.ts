import type { AlgorithmKind } from '../algorithms/types';

/*
 * How one request's answer is built, from one key to the handler:
 *   Outcome<S>    an algorithm's decide() for one key: the numbers and the state to store
 *   LayerOutcome  what a store answers for one layer: an Outcome without its state
 *                 (a remote store's answer also says whether it was degraded: GuardedAnswer,
 *                 and the local fallback's: FallbackAnswer)
 *   LayerResult   a LayerOutcome named: its rule, kind and window
 *   Decision      every LayerResult of the request folded into one: the binding layer's numbers
 *   RateLimitInfo a Decision plus its cost and refund(n): what req.rateLimit holds (at run time,
 *                 the limiter's LimiterDecision)
 */

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
  /** A shadow rule's layer: counted and reported, never enforced (and never in the headers). */
  shadow: boolean;
}

/**
 * The answer for one request. The top-level numbers are the binding layer's: the one that denied
 * (the longest wait if several did), or else the one with the least remaining. Shadow layers are
 * never binding: they only set `shadowDenied`.
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
  /** True when a shadow rule denied: the request passes, but it would not have under that rule. */
  shadowDenied: boolean;
  /**
   * True when the store was out of reach and `failMode: 'closed'` denied the request: adapters
   * answer 503 (not 429) with Retry-After.
   */
  unavailable?: boolean | undefined;
  /** Present when the request holds a concurrency slot: frees it; calling it again does nothing. */
  release?: (() => Promise<void>) | undefined;
}

/**
 * Index of the binding layer: the denying one with the longest wait, else the one with least
 * remaining; never a shadow layer (-1 when every layer is one, or none applied).
 */
export function bindingIndex(results: readonly LayerResult[], allowed: boolean): number {
  let binding = -1;
  for (let i = 0; i < results.length; i++) {
    const result = results[i] as LayerResult;
    if (result.shadow) continue;
    if (binding === -1) binding = i;
    else if (
      allowed
        ? result.remaining < (results[binding] as LayerResult).remaining
        : bindsHarder(result, results[binding] as LayerResult)
    )
      binding = i;
  }
  return binding;
}

function bindsHarder(candidate: LayerResult, current: LayerResult): boolean {
  if (candidate.allowed !== current.allowed) return !candidate.allowed;
  return candidate.retryAfter > current.retryAfter;
}
