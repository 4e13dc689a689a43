import type { Store } from '@floodgate/core';
import type { LayerCall, LayerOutcome } from '@floodgate/core/store';

/**
 * A real store with a window onto its refunds, so a test can wait for the after-response work
 * (release, outcome refund) instead of sleeping.
 */
export class WatchedStore implements Store {
  readonly refunds: { kinds: string[]; cost: number }[] = [];
  /** Consume calls answered so far. */
  consumed = 0;
  #waiters: (() => void)[] = [];

  constructor(readonly inner: Store) {}

  get local(): boolean {
    return this.inner.local === true;
  }

  async consume(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]> {
    const outcomes = await this.inner.consume(calls, requestId);
    this.consumed++;
    return outcomes;
  }

  async refund(calls: readonly LayerCall[], requestId: string): Promise<void> {
    await this.inner.refund(calls, requestId);
    this.refunds.push({ kinds: calls.map((call) => call.algorithm.kind), cost: calls[0]?.cost ?? 0 });
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves once `count` refunds (of any kind) have completed in total. */
  async refunded(count: number): Promise<void> {
    while (this.refunds.length < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}
