import { LRUCache } from 'lru-cache';
import { usableLimit } from '../algorithms/reserve';
import type { LayerCall, LayerOutcome } from '../store/store';

/** One denial the store gave: every layer's outcome at that moment, and when it was given. */
interface Denial {
  at: number;
  keys: readonly string[];
  outcomes: readonly LayerOutcome[];
  /** The cost of the denied layer's request. */
  cost: number;
  /** True when any cost >= 1 waits exactly as long (a fixed window: nothing frees before its end). */
  anyCost: boolean;
  /** A critical request's denial (the reserve was spent too): it answers normal requests as well. */
  critical: boolean;
}

/**
 * Remembers, per layer key, a denial the store gave until its `retryAfter` has passed, so that a
 * flood from one client is answered here at no cost to the store. A local answer must give the
 * numbers the store would give, never a shorter wait, whatever other instances do meanwhile. So a
 * denial is kept only when nothing at all can be admitted on that key before its retry time (no
 * unit left), and it answers only the requests it is exact for:
 *   - a fixed window frees nothing before the window ends: any cost >= 1 waits until then;
 *   - the other algorithms free units gradually: a denial of cost 1 is the earliest anything can
 *     pass, so it answers requests of cost 1 (a larger cost would wait longer: it goes to the store).
 * A normal request's denial does not answer a critical one (the reserve may be left), and a shadow
 * layer's denial is never kept (it stops nothing). An admission on a key (this instance charged it),
 * a reset, block or unblock from this instance forget the key's denial. Bounded: the least
 * recently used keys are forgotten first. Concurrency layers are never cached: a released slot
 * frees them before any computed time.
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
    if (this.#entries.size === 0) return undefined;
    let now: number | undefined;
    for (const call of calls) {
      const denial = this.#entries.get(call.key);
      if (denial === undefined) continue;
      now ??= this.clock();
      const outcome = denial.outcomes[denial.keys.indexOf(call.key)] as LayerOutcome;
      if (now >= denial.at + outcome.retryAfter) {
        this.#entries.delete(call.key);
      } else if (
        (call.cost === denial.cost || (denial.anyCost && call.cost >= 1)) &&
        (denial.critical || call.critical !== true)
      ) {
        return calls.map((each) => replay(denial, each, now as number));
      }
    }
    return undefined;
  }

  /** Records the layers the store denied that nothing can pass before their retry; forgets keys it charged. */
  remember(calls: readonly LayerCall[], outcomes: readonly LayerOutcome[]): void {
    let denied = false;
    for (const outcome of outcomes) if (!outcome.allowed) denied = true;
    if (!denied) {
      if (this.#entries.size === 0) return;
      for (const call of calls) if (call.cost > 0) this.#entries.delete(call.key);
      return;
    }
    let denial: Denial | undefined;
    for (let index = 0; index < outcomes.length; index++) {
      const outcome = outcomes[index] as LayerOutcome;
      const call = calls[index] as LayerCall;
      const kind = call.algorithm.kind;
      // A shadow layer's denial stops nothing: answering for it would skip the layers it let through.
      if (outcome.allowed || outcome.retryAfter <= 0 || outcome.remaining > 0 || kind === 'concurrency') continue;
      if (call.shadow === true) continue;
      const anyCost = kind === 'fixedWindow';
      if (!anyCost && call.cost !== 1) continue;
      const critical = call.critical === true;
      denial ??= {
        at: this.clock(),
        keys: calls.map((each) => each.key),
        outcomes,
        cost: call.cost,
        anyCost,
        critical,
      };
      this.#entries.set(call.key, denial.cost === call.cost ? denial : { ...denial, cost: call.cost, anyCost });
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
    const limit = usableLimit(call.algorithm, call.critical);
    return { allowed: true, limit, remaining: limit, resetAt: now, retryAfter: 0, delay: 0 };
  }
  if (outcome.allowed) return outcome;
  return {
    allowed: false,
    limit: outcome.limit,
    remaining: outcome.remaining,
    resetAt: outcome.resetAt,
    retryAfter: Math.max(1, denial.at + outcome.retryAfter - now),
    delay: 0,
  };
}
