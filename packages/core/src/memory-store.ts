import { DEFAULTS } from './defaults';
import { LRUCache } from 'lru-cache';
import { ttlOf } from './algorithms/types';
import { checkedClock } from './clock';
import { consoleWarning, onceWarner } from './warnings';
import type { Outcome } from './algorithms/types';
import { integerOption, functionOption, rejectUnknownKeys, requireObject } from './validate';
import type { LayerCall, LayerOutcome, Store } from './store';

export interface MemoryStoreOptions {
  /** Most keys kept at once; the least recently used is forgotten first. Default 100,000. */
  maxKeys?: number;
  /** Time source in epoch ms. Default `Date.now`. */
  clock?: () => number;
}

/**
 * Keeps limiter state in this process, in an LRU bounded to `maxKeys`, each key expiring when its
 * algorithm no longer needs it. The default store, and the local fallback when Redis is away.
 *
 * @example createLimiter({ store: new MemoryStore({ maxKeys: 10_000 }), limits })
 */
export class MemoryStore implements Store {
  readonly local = true;
  readonly clock: () => number;
  readonly maxKeys: number;
  /** The clock, each reading checked (see checkedClock). */
  readonly #now: () => number;
  // States are objects or arrays (never undefined), so they are stored as they are.
  readonly #entries: LRUCache<string, object>;

  constructor(options: MemoryStoreOptions = {}) {
    const raw = requireObject('MemoryStore', options);
    rejectUnknownKeys('MemoryStore', raw, ['maxKeys', 'clock']);
    this.maxKeys =
      raw.maxKeys === undefined ? DEFAULTS.memoryStoreKeys : integerOption('MemoryStore.maxKeys', raw.maxKeys, 1);
    this.clock = raw.clock === undefined ? Date.now : functionOption('MemoryStore.clock', raw.clock);
    const clock = checkedClock(this.clock, 'MemoryStore.clock', onceWarner(consoleWarning));
    this.#now = clock;
    // Bounded by maxSize with every entry weighing 1 rather than by `max`: `max` preallocates
    // arrays for every slot up front (about 28 ms for 100,000 keys), which per-route limiters and
    // the local fallback would pay at construction.
    this.#entries = new LRUCache({
      maxSize: this.maxKeys,
      sizeCalculation: () => 1,
      ttlResolution: 0,
      perf: { now: () => clock() },
    });
  }

  /** Number of keys held right now (expired ones may still count until touched). */
  get size(): number {
    return this.#entries.size;
  }

  async consume(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]> {
    return this.consumeNow(calls, requestId).map(({ state: _state, ...outcome }) => outcome);
  }

  /** The synchronous core of `consume`, for callers that must not yield (the limiter, the local fallback). */
  consumeNow(calls: readonly LayerCall[], requestId: string): Outcome<unknown>[] {
    const now = this.#now();
    const entries = this.#entries;
    const decided: Outcome<unknown>[] = new Array(calls.length);
    let allowed = true;
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i] as LayerCall;
      const outcome = call.algorithm.decide(entries.get(call.key), now, call.cost, requestId);
      if (!outcome.allowed) allowed = false;
      decided[i] = outcome;
    }
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i] as LayerCall;
      if (!allowed) {
        // A layer that would have allowed is not charged when another denies: report its uncharged numbers.
        if ((decided[i] as Outcome<unknown>).allowed) {
          decided[i] = call.algorithm.decide(entries.get(call.key), now, 0, requestId);
        }
        continue;
      }
      const outcome = decided[i] as Outcome<unknown>;
      if (outcome.state !== undefined) entries.set(call.key, outcome.state as object, { ttl: ttlOf(outcome, now) });
    }
    // The outcomes still carry the state (no copy per request); callers read only the LayerOutcome fields.
    return decided;
  }

  async refund(calls: readonly LayerCall[], requestId: string): Promise<void> {
    const now = this.#now();
    for (const call of calls) {
      const entry = this.#entries.get(call.key);
      if (entry === undefined) continue;
      const state = call.algorithm.refund(entry, now, call.cost, requestId);
      const remainingTtl = this.#entries.getRemainingTTL(call.key);
      if (state !== undefined) this.#entries.set(call.key, state as object, { ttl: Math.max(1, remainingTtl) });
    }
  }

  /** Forgets every key. */
  clear(): void {
    this.#entries.clear();
  }
}
