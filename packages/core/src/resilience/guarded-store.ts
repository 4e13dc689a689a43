import { StoreError } from '../base/errors';
import { BreakerSet, type Passage } from './breakers';
import type { BreakerChange } from './breaker';
import { Deadlines } from './deadline';
import { DenyCache } from './deny-cache';
import { LocalFallback } from './fallback';
import type { LayerCall, LayerOutcome, Store } from '../store/store';
import type { SafeEvents } from './events';
import type { ResilienceConfig, StoreOperation } from './options';

const REFUND_DROPPED = 'a refund was dropped, not sent: the store is out of reach (its circuit breaker is open)';

/** A store's answer as the limiter uses it. */
export interface GuardedAnswer {
  outcomes: LayerOutcome[];
  /** Decided without the shared store. */
  degraded: boolean;
  unavailable: boolean;
  /** Frees the concurrency leases taken under this answer, wherever they were taken. Never rejects. */
  release(leases: readonly LayerCall[], requestId: string): Promise<void>;
}

/**
 * A store that can tell which independent part of it holds a key (for Redis Cluster: the shard or
 * slot). Each part gets its own circuit breaker, so losing one shard leaves the others in use.
 */
export interface PartitionedStore extends Store {
  partitionOf(key: string): string;
}

/** The control operations a limiter passes on to its store. */
export type ControlOperation = 'reset' | 'block' | 'unblock';

/**
 * The limiter's view of its store: consume, refund and peek never reject and never wait longer
 * than the deadline. `control` does reject (an operator asked for it, and must learn that it
 * failed), also when the breaker is open or the store has no such operation.
 */
export interface GuardedStore {
  /** Answers at once (no promise) from the deny cache, or when the breaker sends the call to the fallback. */
  consume(calls: readonly LayerCall[], requestId: string): GuardedAnswer | Promise<GuardedAnswer>;
  refund(calls: readonly LayerCall[]): Promise<void>;
  /** The outcomes consume would give, charging nothing; degraded when the store could not answer. */
  peek(calls: readonly LayerCall[], requestId: string): Promise<{ outcomes: LayerOutcome[]; degraded: boolean }>;
  /**
   * consume for a lease: the store's outcomes, or undefined when it could not answer (nothing is
   * charged in the fallback: a lease is never taken without the store).
   */
  take(calls: readonly LayerCall[]): Promise<LayerOutcome[] | undefined>;
  /** The fallback's answer without asking the store (the store just failed this request once). */
  degrade(calls: readonly LayerCall[], requestId: string): GuardedAnswer | Promise<GuardedAnswer>;
  /** `duration` (ms) is for `block`. Applied to the local fallback too, so an outage honours it. */
  control(operation: ControlOperation, calls: readonly LayerCall[], duration: number): Promise<void>;
}

/**
 * Puts the deadline, circuit breaker, deny cache and local fallback around a remote store. A store
 * marked `local` (MemoryStore) cannot hang or fail, so it is used as it is.
 */
export function guardStore(
  store: Store,
  config: ResilienceConfig,
  events: SafeEvents,
  clock: () => number,
): GuardedStore {
  if (store.local === true) return passThrough(store);
  const fallback = new LocalFallback(config.failMode, config.instances, clock);
  const onChange = (change: BreakerChange) => {
    // Once the whole store is back it alone decides: the local counts are dropped, not merged.
    if (change.to === 'closed' && breakers.allClosed()) fallback.clear();
    events.breakerChange(change);
  };
  const breakers: BreakerSet = new BreakerSet(config.breaker, clock, onChange, {
    readyCount: 'readyCount' in store ? () => store.readyCount : undefined,
  });
  const partitionsOf = partitioner(store);
  const denyCache = config.denyCacheKeys === undefined ? undefined : new DenyCache(config.denyCacheKeys, clock);

  const deadlines = new Deadlines(config.timeout);

  /**
   * Waits for one store call under the deadline; reports and returns the error instead of throwing.
   * With `shapeOf`, an answer that does not give one outcome per call is the store's failure too.
   */
  const attempt = <T>(
    passage: Passage,
    operation: StoreOperation,
    pending: Promise<T>,
    shapeOf?: readonly LayerCall[],
  ): Promise<Attempt<T>> => {
    const started = events.wantsStoreCalls ? performance.now() : 0;
    const failed = (error: unknown): Attempt<T> => {
      events.storeError({ error, operation });
      breakers.fail(passage);
      if (events.wantsStoreCalls) events.storeCall({ operation, ms: performance.now() - started, ok: false });
      return { ok: false, error };
    };
    return deadlines.watch(pending).then((value) => {
      if (shapeOf !== undefined && !hasShape(value, shapeOf)) return failed(shapeError(shapeOf));
      breakers.succeed(passage);
      if (events.wantsStoreCalls) events.storeCall({ operation, ms: performance.now() - started, ok: true });
      return { ok: true, value };
    }, failed);
  };

  const releaseInStore = async (leases: readonly LayerCall[], requestId: string) => {
    const passage = breakers.acquire(partitionsOf(leases), false);
    if (passage !== undefined) await attempt(passage, 'refund', begin(store, store.refund, leases, requestId));
  };
  const releaseLocally = (leases: readonly LayerCall[], requestId: string) => fallback.refund(leases, requestId);
  const releaseNothing = async () => {};

  const degrade = (calls: readonly LayerCall[], requestId: string, partitions: readonly string[]): GuardedAnswer => {
    const answer = fallback.decide(calls, requestId, breakers.retryIn(partitions));
    const release = answer.leasedLocally ? releaseLocally : releaseNothing;
    return { outcomes: answer.outcomes, degraded: true, unavailable: answer.unavailable, release };
  };

  return {
    consume(calls, requestId) {
      if (calls.length === 0) return { outcomes: [], degraded: false, unavailable: false, release: releaseNothing };
      const cached = denyCache?.lookup(calls);
      if (cached !== undefined)
        return { outcomes: cached, degraded: false, unavailable: false, release: releaseNothing };
      const partitions = partitionsOf(calls);
      const passage = breakers.acquire(partitions);
      if (passage === undefined) return degrade(calls, requestId, partitions);
      return attempt(passage, 'consume', begin(store, store.consume, calls, requestId), calls).then(
        (result): GuardedAnswer => {
          if (!result.ok) return degrade(calls, requestId, partitions);
          denyCache?.remember(calls, result.value);
          return { outcomes: result.value, degraded: false, unavailable: false, release: releaseInStore };
        },
      );
    },
    async take(calls) {
      const cached = denyCache?.lookup(calls);
      if (cached !== undefined) return cached;
      const passage = breakers.acquire(partitionsOf(calls));
      if (passage === undefined) return undefined;
      const result = await attempt(passage, 'consume', begin(store, store.consume, calls, ''), calls);
      if (!result.ok) return undefined;
      denyCache?.remember(calls, result.value);
      return result.value;
    },
    degrade: (calls, requestId) => degrade(calls, requestId, partitionsOf(calls)),
    async refund(calls) {
      denyCache?.forget(calls);
      const passage = breakers.acquire(partitionsOf(calls), false);
      if (passage === undefined) {
        // Never queued for later (it would land after the state it meant to correct): the store
        // never sees it, and the hooks are told so. failMode 'local' gives it to the local share.
        events.storeError({ error: new StoreError(REFUND_DROPPED), operation: 'refund' });
        return fallback.refund(calls, '');
      }
      await attempt(passage, 'refund', begin(store, store.refund, calls, ''));
    },
    async peek(calls, requestId) {
      const peek = store.peek;
      const passage = peek === undefined ? undefined : breakers.acquire(partitionsOf(calls), false);
      if (passage !== undefined) {
        const result = await attempt(
          passage,
          'peek',
          begin(store, peek as NonNullable<Store['peek']>, calls, requestId),
          calls,
        );
        if (result.ok) return { outcomes: result.value, degraded: false };
      }
      return { outcomes: fallback.peek(calls, requestId, breakers.retryIn(partitionsOf(calls))), degraded: true };
    },
    async control(operation, calls, duration) {
      const run = controlOf(store, operation);
      denyCache?.forget(calls);
      fallback.control(operation, calls, duration);
      const passage = breakers.acquire(partitionsOf(calls), false);
      if (passage === undefined) {
        throw new StoreError(`${operation} was not sent: the store is out of reach (its circuit breaker is open)`);
      }
      const result = await attempt(passage, operation, begin(undefined, run, calls, duration));
      if (!result.ok) throw result.error;
    },
  };
}

/** The store's own control operation, bound; throws when the store has none (before any call is made). */
function controlOf(
  store: Store,
  operation: ControlOperation,
): (calls: readonly LayerCall[], duration: number) => Promise<void> {
  const method = store[operation];
  if (typeof method !== 'function') {
    throw new StoreError(`the store has no ${operation}() method, so the limiter cannot ${operation}`);
  }
  return (calls, duration) => method.call(store, calls, duration);
}

/** The one partition of a store that has no parts (shared: nothing writes to it). */
const WHOLE_STORE: readonly string[] = Object.freeze(['']);

/** The distinct partitions of some calls; a store without partitions is one (`''`), and so is a key the store cannot place. */
function partitioner(store: Store): (calls: readonly LayerCall[]) => readonly string[] {
  const partitionOf = (store as Partial<PartitionedStore>).partitionOf;
  if (typeof partitionOf !== 'function') return () => WHOLE_STORE;
  const place = (key: string) => {
    try {
      const partition = partitionOf.call(store, key);
      return typeof partition === 'string' ? partition : '';
    } catch {
      return '';
    }
  };
  return (calls) => {
    if (calls.length === 1) {
      const partition = place((calls[0] as LayerCall).key);
      return partition === '' ? WHOLE_STORE : [partition];
    }
    return [...new Set(calls.map((call) => place(call.key)))];
  };
}

function passThrough(store: Store): GuardedStore {
  const release = (leases: readonly LayerCall[], requestId: string) => store.refund(leases, requestId);
  return {
    async consume(calls, requestId) {
      return { outcomes: await store.consume(calls, requestId), degraded: false, unavailable: false, release };
    },
    refund: (calls) => store.refund(calls, ''),
    take: (calls) => store.consume(calls, ''),
    async degrade(calls, requestId) {
      return { outcomes: await store.consume(calls, requestId), degraded: false, unavailable: false, release };
    },
    async peek(calls, requestId) {
      if (store.peek === undefined) throw new StoreError('the store has no peek() method, so the limiter cannot peek');
      return { outcomes: checkShape(await store.peek(calls, requestId), calls), degraded: false };
    },
    control: async (operation, calls, duration) => controlOf(store, operation)(calls, duration),
  };
}

type Attempt<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Calls `method` on `target`; a synchronous throw becomes a rejection. */
function begin<A, B, T>(
  target: unknown,
  method: (this: unknown, a: A, b: B) => T | PromiseLike<T>,
  a: A,
  b: B,
): Promise<T> {
  try {
    return Promise.resolve(method.call(target, a, b));
  } catch (error) {
    return Promise.reject(error);
  }
}

function hasShape(outcomes: unknown, calls: readonly LayerCall[]): outcomes is LayerOutcome[] {
  return Array.isArray(outcomes) && outcomes.length === calls.length;
}

function shapeError(calls: readonly LayerCall[]): StoreError {
  return new StoreError(`the store answered ${calls.length} layer(s) with something else`);
}

function checkShape(outcomes: unknown, calls: readonly LayerCall[]): LayerOutcome[] {
  if (!hasShape(outcomes, calls)) throw shapeError(calls);
  return outcomes;
}
