import { checkRefund } from '../algorithms/cost';
import { bindingIndex } from './decision';
import type { Decision, LayerResult } from './decision';
import type { AdaptiveSlot } from '../adaptive/controller';
import type { LayerCall } from '../store/store';

/** Where a decision sends the units it gives back: its limiter. */
export interface RefundTarget {
  /** Gives `cost` units back on `calls`' keys; never rejects (failures go to the limiter's hooks). */
  refundLater(calls: readonly LayerCall[], cost: number): Promise<void>;
}

/**
 * The Decision the limiter hands out, which is also what the middleware exposes as
 * `req.rateLimit`: the layers' numbers plus `cost` and `refund(n)`. One object per request; the
 * keys it was charged under stay inside it, so a refund needs no second key lookup.
 */
export class LimiterDecision implements Decision {
  allowed: boolean;
  limit = 0;
  remaining = 0;
  resetAt = 0;
  retryAfter = 0;
  delay = 0;
  rule: string | undefined = undefined;
  results: LayerResult[];
  degraded: boolean;
  shadowDenied = false;
  unavailable?: boolean | undefined = undefined;
  release?: (() => Promise<void>) | undefined = undefined;
  /** The request's place under adaptiveConcurrency(), freed when the response ends. */
  adaptiveSlot: AdaptiveSlot | undefined = undefined;
  /** Units charged for this request. */
  readonly cost: number;
  readonly #calls: readonly LayerCall[];
  readonly #target: RefundTarget | undefined;
  #owner: object | undefined;
  #finished = false;
  /** Units given back so far: a refund never gives more than the request was charged. */
  #refunded = 0;

  constructor(
    results: LayerResult[],
    degraded: boolean,
    cost: number,
    calls: readonly LayerCall[],
    target: RefundTarget | undefined,
  ) {
    let allowed = true;
    for (let i = 0; i < results.length; i++) {
      const result = results[i] as LayerResult;
      if (result.allowed) continue;
      if (result.shadow) this.shadowDenied = true;
      else allowed = false;
    }
    this.allowed = allowed;
    this.results = results;
    this.degraded = degraded;
    this.cost = cost;
    this.#calls = calls;
    this.#target = target;
    const binding = results[bindingIndex(results, allowed)];
    if (binding === undefined) return;
    this.limit = binding.limit;
    this.remaining = binding.remaining;
    this.resetAt = binding.resetAt;
    this.rule = binding.rule;
    for (let i = 0; i < results.length; i++) {
      const result = results[i] as LayerResult;
      if (result.shadow) continue;
      if (allowed) this.delay = Math.max(this.delay, result.delay);
      else this.retryAfter = Math.max(this.retryAfter, result.retryAfter);
    }
  }

  /** The store calls this decision was charged with (empty when no layer applied). */
  get calls(): readonly LayerCall[] {
    return this.#calls;
  }

  /**
   * Gives `n` units back (default: all it was charged), e.g. once the real cost is known: at most
   * what the request was charged, less what it already gave back, and only to the layers that
   * charged it. Rejects with InvalidCostError for an `n` that is not a whole number >= 0; a store
   * failure goes to the limiter's hooks instead.
   */
  refund(n: number = this.cost): Promise<void> {
    let units: number;
    try {
      units = this.claimRefund(n);
    } catch (error) {
      return Promise.reject(error);
    }
    if (units === 0 || this.#target === undefined) return Promise.resolve();
    return this.#target.refundLater(this.chargedCalls, units);
  }

  /**
   * Takes up to `n` units from what this decision may still give back (nothing for a denied
   * request) and answers how many; throws InvalidCostError for an `n` that is not a whole number >= 0.
   */
  claimRefund(n: unknown): number {
    const units = Math.min(checkRefund(n), (this.allowed ? this.cost : 0) - this.#refunded);
    this.#refunded += units;
    return units;
  }

  /** The calls of the layers this request was charged on: a shadow layer that denied was not. */
  get chargedCalls(): readonly LayerCall[] {
    return this.#calls.filter((_, i) => this.results[i]?.allowed === true);
  }

  /** Marks the decision as handed out by `owner` (a middleware instance). */
  claim(owner: object): void {
    this.#owner = owner;
  }

  ownedBy(owner: object): boolean {
    return this.#owner === owner;
  }

  /** True the first time only: the after-response work runs once per request. */
  finishOnce(): boolean {
    if (this.#finished) return false;
    this.#finished = true;
    return true;
  }
}
