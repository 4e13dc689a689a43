import { checkCost } from '../algorithms/cost';
import type { SafeEvents } from '../resilience/events';
import type { GuardedStore } from '../resilience/guarded-store';
import type { LayerCall, Store } from '../store/store';
import type { Leasing } from './leasing';
import type { RefundTarget } from './limiter-decision';
import type { RuleCall } from './rule-call';

/**
 * Gives units back: to the pool a leased layer's units came from, otherwise to the store (through
 * the resilience guard, which drops a refund while the store is out of reach). Concurrency slots
 * are not refunded here: a decision's release() frees them.
 */
export class Refunds implements RefundTarget {
  readonly #store: Store;
  readonly #guarded: GuardedStore;
  readonly #events: SafeEvents;
  readonly #clock: () => number;
  #leasing: Leasing | undefined;

  constructor(
    store: Store,
    guarded: GuardedStore,
    events: SafeEvents,
    clock: () => number,
    leasing: Leasing | undefined,
  ) {
    this.#store = store;
    this.#guarded = guarded;
    this.#events = events;
    this.#clock = clock;
    this.#leasing = leasing;
  }

  /** Leases began (a reload brought the first leased rule): ticketed units go back to their pool. */
  leaseWith(leasing: Leasing): void {
    this.#leasing = leasing;
  }

  /** Gives `cost` units back to `calls`' layers (concurrency slots are left to release()). */
  refund(calls: readonly LayerCall[], cost: number): Promise<void> {
    const layers: LayerCall[] = [];
    let now: number | undefined;
    for (const call of calls) {
      if (call.algorithm.kind === 'concurrency') continue;
      const ruleCall = call as Partial<RuleCall>;
      const checked = checkCost(call.algorithm, cost, ruleCall.rule?.name ?? call.key);
      if (ruleCall.ticket !== undefined) {
        now ??= this.#clock();
        (this.#leasing as Leasing).putBack(ruleCall.ticket, checked, now);
        continue;
      }
      layers.push({ ...call, cost: checked });
    }
    if (layers.length === 0) return Promise.resolve();
    return this.#store.local === true ? this.#store.refund(layers, '') : this.#guarded.refund(layers);
  }

  /** As refund, but never rejects: a failure goes to the limiter's storeError hook. */
  refundLater(calls: readonly LayerCall[], cost: number): Promise<void> {
    try {
      return this.refund(calls, cost).catch((error: unknown) =>
        this.#events.storeError({ error, operation: 'refund' }),
      );
    } catch (error) {
      this.#events.storeError({ error, operation: 'refund' });
      return Promise.resolve();
    }
  }
}
