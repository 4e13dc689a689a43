import type { Algorithm, Outcome } from '../algorithms/types';

/**
 * A penalty: a key its layer denies is blocked for `duration` ms. With escalation (`period` > 0),
 * each further penalty less than `period` after the previous one doubles the block, up to `max`.
 */
export interface Penalty {
  duration: number;
  /** 0: every penalty lasts `duration`. */
  period: number;
  max: number;
}

/**
 * One layer of one request, as a store sees it: a full key, the algorithm and the cost, plus what
 * the rule asks of the layer (all optional; a store that ignores them limits as before).
 */
export interface LayerCall {
  key: string;
  algorithm: Algorithm;
  cost: number;
  /** Shadow mode: the layer is decided (and charged when it allows) but its denial stops nothing. */
  shadow?: boolean | undefined;
  /** The request may use the algorithm's reserve. */
  critical?: boolean | undefined;
  /** Blocks the key when this layer denies a request (never for a shadow layer). */
  penalty?: Penalty | undefined;
}

/** A store's answer for one layer: the algorithm's outcome without the state. */
export type LayerOutcome = Omit<Outcome<unknown>, 'state'>;

/**
 * Where limiter state lives. `consume` is all-or-nothing: every layer's outcome is reported, and
 * the layers are charged only if every layer that is not a shadow allows (shadow layers are then
 * charged where they allow). When a request is denied, each denying layer with a penalty whose key
 * was not blocked already is blocked (for normal requests only, when a critical request would have
 * been admitted by the reserve). `refund` gives units back (and releases the concurrency
 * leases taken under `requestId`). The control operations (peek, reset, block, unblock) are
 * optional: a store without them makes the limiter's methods of the same name reject.
 */
export interface Store {
  consume(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]>;
  refund(calls: readonly LayerCall[], requestId: string): Promise<void>;
  /** Each layer's outcome as consume would answer it, writing nothing (no penalty, no TTL change). */
  peek?(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]>;
  /** Deletes the layers' state, their blocks and their penalty history. */
  reset?(calls: readonly LayerCall[]): Promise<void>;
  /** Blocks the layers' keys for `duration` ms: every request on them is denied until then. */
  block?(calls: readonly LayerCall[], duration: number): Promise<void>;
  /**
   * Lifts the layers' blocks, forgets their penalty history, and deletes the state of a layer with
   * a penalty whose quota is spent (a normal request of cost 1 would be denied), so the client is
   * admitted again rather than penalised again.
   */
  unblock?(calls: readonly LayerCall[]): Promise<void>;
  /** True for stores that live in this process and cannot hang (no deadline or fallback needed). */
  readonly local?: boolean;
  /**
   * Optional: how many times the store's connection has become ready so far, a count that grows
   * with every reconnect (RedisStore counts its client's `ready` events). While the limiter's
   * circuit breaker is open, a change means the store is reachable again, and the next request
   * probes it at once instead of waiting for the next scheduled probe.
   */
  readonly readyCount?: number | undefined;
}
