import type { Algorithm, Outcome } from './algorithms/types';

/** One layer of one request, as a store sees it: a full key, the algorithm and the cost. */
export interface LayerCall {
  key: string;
  algorithm: Algorithm;
  cost: number;
}

/** A store's answer for one layer: the algorithm's outcome without the state. */
export type LayerOutcome = Omit<Outcome<unknown>, 'state'>;

/**
 * Where limiter state lives. `consume` is all-or-nothing: every layer's outcome is reported, and
 * the layers are charged only if all of them allow. `refund` gives units back (and releases the
 * concurrency leases taken under `requestId`).
 */
export interface Store {
  consume(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]>;
  refund(calls: readonly LayerCall[], requestId: string): Promise<void>;
  /** True for stores that live in this process and cannot hang (no deadline or fallback needed). */
  readonly local?: boolean;
}
