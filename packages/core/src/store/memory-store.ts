import { DEFAULTS } from '../base/defaults';
import { LRUCache } from 'lru-cache';
import { consumeLayers, peekLayers, quotaSpent } from './layer-decisions';
import { checkedClock } from '../base/clock';
import { consoleWarning, onceWarner } from '../base/warnings';
import type { Outcome } from '../algorithms/types';
import { integerOption, functionOption, rejectUnknownKeys, requireObject } from '../base/validate';
import type { LayerStates } from './layer-decisions';
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
  /** When each blocked key's block ends (epoch ms). */
  readonly #blocks: LRUCache<string, number>;
  /** Blocks that hold normal requests only: a penalty given where the reserve was left. */
  readonly #normalBlocks: LRUCache<string, number>;
  /** Penalties in a row per key, each remembered for its penalty's period. */
  readonly #strikes: LRUCache<string, { count: number; at: number }>;
  readonly #states: LayerStates;

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
    const bounded = { maxSize: this.maxKeys, sizeCalculation: () => 1, ttlResolution: 0, perf: { now: () => clock() } };
    this.#blocks = new LRUCache(bounded);
    this.#normalBlocks = new LRUCache(bounded);
    this.#strikes = new LRUCache(bounded);
    const entries = this.#entries;
    const blocks = this.#blocks;
    const normalBlocks = this.#normalBlocks;
    const strikes = this.#strikes;
    this.#states = {
      state: (key) => entries.get(key),
      setState: (key, state, ttl) => entries.set(key, state, { ttl }),
      // Most stores never block a key: skip the lookups while none is.
      blockedUntil(key, critical) {
        const all = blocks.size === 0 ? undefined : blocks.get(key);
        if (critical || normalBlocks.size === 0) return all;
        const normal = normalBlocks.get(key);
        return normal === undefined || (all !== undefined && all > normal) ? all : normal;
      },
      block: (key, until, ttl, normalOnly) => (normalOnly ? normalBlocks : blocks).set(key, until, { ttl }),
      strikes: (key) => strikes.get(key),
      setStrikes: (key, count, at, ttl) => strikes.set(key, { count, at }, { ttl }),
    };
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
    // The outcomes still carry the state (no copy per request); callers read only the LayerOutcome fields.
    return consumeLayers(this.#states, calls, requestId, this.#now());
  }

  async peek(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]> {
    return this.peekNow(calls, requestId).map(({ state: _state, ...outcome }) => outcome);
  }

  /** The synchronous core of `peek`. */
  peekNow(calls: readonly LayerCall[], requestId: string): Outcome<unknown>[] {
    return peekLayers(this.#states, calls, requestId, this.#now());
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

  async reset(calls: readonly LayerCall[]): Promise<void> {
    for (const { key } of calls) {
      this.#entries.delete(key);
      this.#liftBlocks(key);
    }
  }

  async block(calls: readonly LayerCall[], duration: number): Promise<void> {
    const now = this.#now();
    for (const { key } of calls) this.#blocks.set(key, now + duration, { ttl: Math.max(1, duration) });
  }

  /** Lifts the blocks, forgets the strikes, and starts a penalised layer's spent quota afresh (see quotaSpent). */
  async unblock(calls: readonly LayerCall[]): Promise<void> {
    const now = this.#now();
    for (const call of calls) {
      this.#liftBlocks(call.key);
      if (quotaSpent(call, this.#entries.get(call.key), now)) this.#entries.delete(call.key);
    }
  }

  /** Forgets every key. */
  clear(): void {
    this.#entries.clear();
    this.#blocks.clear();
    this.#normalBlocks.clear();
    this.#strikes.clear();
  }

  #liftBlocks(key: string): void {
    this.#blocks.delete(key);
    this.#normalBlocks.delete(key);
    this.#strikes.delete(key);
  }
}
