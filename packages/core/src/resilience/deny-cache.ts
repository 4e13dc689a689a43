import { LRUCache } from 'lru-cache';
import type { LayerCall, LayerOutcome } from '../store';

/** One denial the store gave: every layer's outcome at that moment, and when it was given. */
interface Denial {
  at: number;
  keys: readonly string[];
  costs: readonly number[];
  outcomes: readonly LayerOutcome[];
}

/**
 * Remembers, per layer key, a denial the store gave until its `retryAfter` has passed, so that a
 * flood from one client is answered here at no cost to the store. A request hits the cache when
 * one of its layers was denied for at least the same cost and the wait is not over (a larger cost
 * can only wait longer). Bounded: the least recently used keys are forgotten first.
 * Concurrency layers are never cached: a released slot frees them before any computed time.
 */
export class DenyCache {
  readonly #entries: LRUCache<string, Denial>;

  constructor(
    maxKeys: number,
    private readonly clock: () => number,
  ) {
    this.#entries = new LRUCache({ max: maxKeys });
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The outcomes to answer with when a layer of `calls` is still denied, otherwise undefined. */
  lookup(calls: readonly LayerCall[]): LayerOutcome[] | undefined {
    const now = this.clock();
    for (const call of calls) {
      const denial = this.#entries.get(call.key);
      if (denial === undefined) continue;
      const index = denial.keys.indexOf(call.key);
      const outcome = denial.outcomes[index] as LayerOutcome;
      if (now >= denial.at + outcome.retryAfter) {
        this.#entries.delete(call.key);
      } else if (call.cost >= (denial.costs[index] as number)) {
        return calls.map((each) => replay(denial, each, now));
      }
    }
    return undefined;
  }

  /** Records the layers the store denied (nothing when it allowed). */
  remember(calls: readonly LayerCall[], outcomes: readonly LayerOutcome[]): void {
    if (outcomes.every((outcome) => outcome.allowed)) return;
    const denial: Denial = {
      at: this.clock(),
      keys: calls.map((call) => call.key),
      costs: calls.map((call) => call.cost),
      outcomes,
    };
    for (const [index, outcome] of outcomes.entries()) {
      const call = calls[index] as LayerCall;
      if (!outcome.allowed && outcome.retryAfter > 0 && call.algorithm.kind !== 'concurrency') {
        this.#entries.set(call.key, denial);
      }
    }
  }

  /** Drops the entries of keys whose units were given back. */
  forget(calls: readonly LayerCall[]): void {
    for (const call of calls) this.#entries.delete(call.key);
  }
}

/**
 * A layer's outcome from the cached denial, its wait shortened by the time passed. A layer the
 * denial did not include (another identity in the same rule) is reported with its full quota: the
 * request never reached the store, so nothing was counted for it.
 */
function replay(denial: Denial, call: LayerCall, now: number): LayerOutcome {
  const index = denial.keys.indexOf(call.key);
  const outcome = index === -1 ? undefined : denial.outcomes[index];
  if (outcome === undefined) {
    const { limit } = call.algorithm;
    return { allowed: true, limit, remaining: limit, resetAt: now, retryAfter: 0, delay: 0 };
  }
  if (outcome.allowed) return outcome;
  return { ...outcome, retryAfter: Math.max(1, denial.at + outcome.retryAfter - now) };
}
