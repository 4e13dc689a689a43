import { StoreError } from '../errors';
import { CircuitBreaker, type BreakerTicket } from './breaker';
import { withDeadline } from './deadline';
import { DenyCache } from './deny-cache';
import { LocalFallback } from './fallback';
import type { LayerCall, LayerOutcome, Store } from '../store';
import type { SafeEvents } from './events';
import type { ResilienceConfig } from './options';

/** A store's answer as the limiter uses it. */
export interface GuardedAnswer {
  outcomes: LayerOutcome[];
  /** Decided without the shared store. */
  degraded: boolean;
  unavailable: boolean;
  /** Frees the concurrency leases taken under this answer, wherever they were taken. Never rejects. */
  release(leases: readonly LayerCall[], requestId: string): Promise<void>;
}

/** The limiter's view of its store: never rejects and never waits longer than the deadline. */
export interface GuardedStore {
  consume(calls: readonly LayerCall[], requestId: string): Promise<GuardedAnswer>;
  refund(calls: readonly LayerCall[]): Promise<void>;
}

/**
 * Puts the deadline, circuit breaker, deny cache and local fallback around a remote store. A store
 * marked `local` (MemoryStore) cannot hang or fail, so it is used as it is.
 */
export function guardStore(store: Store, config: ResilienceConfig, events: SafeEvents, clock: () => number): GuardedStore {
  if (store.local === true) return passThrough(store);
  const fallback = new LocalFallback(config.failMode, config.instances, clock);
  const breaker = new CircuitBreaker(config.breaker, clock, (change) => {
    if (change.to === 'closed') fallback.clear();
    events.breakerChange(change);
  });
  const denyCache = config.denyCacheKeys === undefined ? undefined : new DenyCache(config.denyCacheKeys, clock);

  /** Runs one store call under the deadline; reports and returns the error instead of throwing. */
  const attempt = async <T>(ticket: BreakerTicket, operation: 'consume' | 'refund', run: () => Promise<T>) => {
    try {
      const value = await withDeadline(Promise.resolve().then(run), config.timeout);
      breaker.succeed(ticket);
      return { ok: true as const, value };
    } catch (error) {
      breaker.fail(ticket);
      events.storeError({ error, operation });
      return { ok: false as const };
    }
  };

  const releaseInStore = async (leases: readonly LayerCall[], requestId: string) => {
    const ticket = breaker.acquire();
    if (ticket !== undefined) await attempt(ticket, 'refund', () => store.refund(leases, requestId));
  };
  const releaseLocally = (leases: readonly LayerCall[], requestId: string) => fallback.refund(leases, requestId);
  const releaseNothing = async () => {};

  const degrade = (calls: readonly LayerCall[], requestId: string): GuardedAnswer => {
    const answer = fallback.decide(calls, requestId, breaker.retryIn());
    const release = answer.leasedLocally ? releaseLocally : releaseNothing;
    return { outcomes: answer.outcomes, degraded: true, unavailable: answer.unavailable, release };
  };

  return {
    async consume(calls, requestId) {
      const cached = denyCache?.lookup(calls);
      if (cached !== undefined) return { outcomes: cached, degraded: false, unavailable: false, release: releaseNothing };
      const ticket = breaker.acquire();
      if (ticket === undefined) return degrade(calls, requestId);
      const result = await attempt(ticket, 'consume', async () => checkShape(await store.consume(calls, requestId), calls));
      if (!result.ok) return degrade(calls, requestId);
      denyCache?.remember(calls, result.value);
      return { outcomes: result.value, degraded: false, unavailable: false, release: releaseInStore };
    },
    async refund(calls) {
      denyCache?.forget(calls);
      const ticket = breaker.state === 'closed' ? breaker.acquire() : undefined;
      if (ticket === undefined) return fallback.refund(calls, '');
      await attempt(ticket, 'refund', () => store.refund(calls, ''));
    },
  };
}

function passThrough(store: Store): GuardedStore {
  const release = (leases: readonly LayerCall[], requestId: string) => store.refund(leases, requestId);
  return {
    async consume(calls, requestId) {
      return { outcomes: await store.consume(calls, requestId), degraded: false, unavailable: false, release };
    },
    refund: (calls) => store.refund(calls, ''),
  };
}

function checkShape(outcomes: unknown, calls: readonly LayerCall[]): LayerOutcome[] {
  if (!Array.isArray(outcomes) || outcomes.length !== calls.length) {
    throw new StoreError(`the store answered ${calls.length} layer(s) with something else`);
  }
  return outcomes as LayerOutcome[];
}
