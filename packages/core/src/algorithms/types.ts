/** The seven algorithms; the same names select the Lua twin in @floodgate/redis. */
export type AlgorithmKind =
  | 'fixedWindow'
  | 'slidingLog'
  | 'slidingWindow'
  | 'tokenBucket'
  | 'leakyBucket'
  | 'gcra'
  | 'concurrency';

/**
 * What one algorithm decides for one key at one instant. All numbers are integers:
 * times are epoch milliseconds, durations are milliseconds.
 */
export interface Outcome<S> {
  allowed: boolean;
  /** The state to store. On a deny it is the state that was passed in, untouched. */
  state: S | undefined;
  /** The quota advertised for this rule (requests, tokens or slots): what the request's priority may use (without the reserve for a normal one). */
  limit: number;
  /** Units that could still be consumed now, after this request. */
  remaining: number;
  /** When the key's state is fully replenished (nothing left to remember). */
  resetAt: number;
  /** 0 when allowed; otherwise the exact wait after which the same request is allowed if nothing else arrives. */
  retryAfter: number;
  /** Shaping only: how long the caller must wait before handling the admitted request. */
  delay: number;
}

/**
 * An algorithm is a value: validated options plus pure functions over integer state.
 * `S` is the per-key state; MemoryStore keeps it in an LRU, the Lua twin keeps it in Redis.
 */
export interface Algorithm<S = unknown> {
  readonly kind: AlgorithmKind;
  /** The quota advertised in headers (`q`). */
  readonly limit: number;
  /** The window the quota applies to, in ms (`w`). */
  readonly window: number;
  /** The largest cost one call may ask for; more is a RangeError at call time. */
  readonly maxCost: number;
  /** Units kept for critical requests (see the `reserve` option); 0 when there is none. */
  readonly reserve: number;
  /** Integer parameters in the order the Lua twin reads them from ARGV. */
  readonly params: readonly number[];
  /** Options as the user would write them, for `divide` and for error messages. */
  readonly options: Readonly<Record<string, unknown>>;
  /**
   * Decides one request of `cost` units at `now`. `id` names the request (sliding log entries and
   * concurrency leases are stored under it); other algorithms ignore it. A request that is not
   * `critical` may not use the reserve: it sees `limit - reserve` units.
   */
  decide(state: S | undefined, now: number, cost: number, id: string, critical?: boolean): Outcome<S>;
  /** Gives `cost` units back (or releases the lease of `id`); never drives a count below zero. */
  refund(state: S | undefined, now: number, cost: number, id: string): S | undefined;
  /**
   * The same algorithm with its quota divided by `parts` (at least 1 unit each): the share one of
   * `parts` instances may admit on its own when the shared store is out of reach.
   */
  divide(parts: number): Algorithm<S>;
}

/** How long (ms, integer >= 1) a key must be kept so that its next decision is still right. */
export function ttlOf(outcome: { resetAt: number }, now: number): number {
  return Math.max(1, outcome.resetAt - now);
}
