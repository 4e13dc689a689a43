import type { LayerResult } from './decision';
import type { LimiterDecision } from './limiter-decision';
import type { RuleCall } from './rule-call';
import type { KeyContext } from '../keys/context';
import type { DecisionEvent } from '../resilience/options';
import type { LayerCall, LayerOutcome } from '../store/store';

/** How a request's concurrency slots are freed: by the store that took them. */
export type Release = (leases: readonly LayerCall[], requestId: string) => Promise<void>;

/** Each layer's result, in rule order, from its call and the outcome the store (or its lease) gave. */
export function layerResults(calls: readonly RuleCall[], outcomes: readonly LayerOutcome[]): LayerResult[] {
  const results: LayerResult[] = new Array(calls.length);
  for (let i = 0; i < calls.length; i++) {
    const { rule, algorithm, shadow, overCapacity } = calls[i] as RuleCall;
    const outcome = outcomes[i] as LayerOutcome;
    results[i] = {
      rule: rule.name,
      kind: algorithm.kind,
      window: algorithm.window,
      allowed: outcome.allowed && !overCapacity,
      limit: outcome.limit,
      remaining: outcome.remaining,
      resetAt: outcome.resetAt,
      // No wait would make such a cost pass.
      retryAfter: overCapacity ? 0 : outcome.retryAfter,
      delay: outcome.delay,
      shadow,
    };
  }
  return results;
}

/** The onDecision/onLimited event: the keys are listed only if a hook reads them. */
export class Decided implements DecisionEvent {
  readonly decision: LimiterDecision;
  readonly ctx: KeyContext;
  readonly #calls: readonly LayerCall[];

  constructor(decision: LimiterDecision, ctx: KeyContext, calls: readonly LayerCall[]) {
    this.decision = decision;
    this.ctx = ctx;
    this.#calls = calls;
  }

  get keys(): string[] {
    return this.#calls.map((call) => call.key);
  }
}

export function releaseOnce(release: Release, leases: readonly LayerCall[], requestId: string): () => Promise<void> {
  let released: Promise<void> | undefined;
  return () => {
    released ??= release(leases, requestId);
    return released;
  };
}
