import type { Algorithm } from './algorithms/types';
import type { Decision } from './decision';
import type { KeyContext, KeyFunction } from './keys/context';
import type { ResilienceOptions } from './resilience/options';
import type { Store } from './store';
import type { FloodgateWarning } from './warnings';

/** One layer of a policy: a name, how to identify the client, and the algorithm that limits it. */
export interface LimitRule<Req = unknown> {
  /** Appears in keys, headers and `Decision.rule`: 1-64 characters from `[A-Za-z0-9._-]`. */
  name: string;
  key: KeyFunction<Req>;
  algorithm: Algorithm;
}

/**
 * createLimiter's options. Besides the store and the layers, the resilience options (`timeout`,
 * `failMode`, `instances`, `breaker`, `denyCache`) and the event hooks apply to a remote store;
 * a local one (MemoryStore) is used as it is, and only the hooks apply.
 */
export interface LimiterOptions<Req = unknown> extends ResilienceOptions<Req> {
  /** Where state lives. Default: a new MemoryStore using `clock`. */
  store?: Store;
  /** Start of every key. Default `'fg'`. */
  prefix?: string;
  /** The layers; a request passes only if every layer that applies allows it. */
  limits: readonly LimitRule<Req>[];
  /**
   * Time source in epoch ms for a MemoryStore the limiter creates, and for the breaker, the local
   * fallback and the deny cache. Default `Date.now`.
   */
  clock?: () => number;
  /** Where run-time warnings go (each code once per limiter). Default `console.warn`. */
  onWarning?: (warning: FloodgateWarning) => void;
}

export interface ConsumeOptions {
  /** Units to charge every layer. Default 1. */
  cost?: number;
}

export interface Limiter<Req = unknown> {
  readonly prefix: string;
  readonly store: Store;
  consume(ctx: KeyContext<Req>, options?: ConsumeOptions): Promise<Decision>;
  /** Gives `cost` units back to every layer that applies to the request. */
  refund(ctx: KeyContext<Req>, options?: ConsumeOptions): Promise<void>;
}
