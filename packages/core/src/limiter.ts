import { LimiterEngine } from './engine';
import { parseLimiterOptions } from './limiter-options';
import type { Algorithm } from './algorithms/types';
import type { Decision } from './decision';
import type { KeyContext, KeyFunction } from './keys/context';
import type { LayerCall, Store } from './store';
import type { ResilienceOptions } from './resilience/options';
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
  readonly rules: readonly LimitRule<Req>[];
  consume(ctx: KeyContext<Req>, options?: ConsumeOptions): Promise<Decision>;
  /** Gives `cost` units back to every layer that applies to the request. */
  refund(ctx: KeyContext<Req>, options?: ConsumeOptions): Promise<void>;
}

/**
 * Builds a limiter from layered rules.
 *
 * @example
 * const limiter = createLimiter({
 *   limits: [{ name: 'ip', key: byIp(), algorithm: slidingWindow({ limit: 100, window: '1m' }) }],
 * });
 * const decision = await limiter.consume({ ip: '203.0.113.7', header: () => undefined, req: {} });
 */
export function createLimiter<Req = unknown>(options: LimiterOptions<Req>): Limiter<Req> {
  const config = parseLimiterOptions(options);
  return limiterOf(new LimiterEngine(config));
}

/** The public face of an engine. A refund(ctx) after consume(ctx) gives back on the keys that were charged. */
export function limiterOf<Req>(engine: LimiterEngine<Req>): Limiter<Req> {
  const charged = new WeakMap<object, readonly LayerCall[]>();
  return {
    prefix: engine.prefix,
    store: engine.store,
    rules: engine.rules,
    async consume(ctx, consumeOptions = {}) {
      const decision = await engine.decide(ctx, consumeOptions.cost ?? 1);
      if (typeof ctx === 'object' && ctx !== null) charged.set(ctx, decision.calls);
      return decision;
    },
    async refund(ctx, refundOptions = {}) {
      const cost = refundOptions.cost ?? 1;
      const calls = charged.get(ctx) ?? (await engine.resolve(ctx, cost));
      await engine.refund(calls, cost);
    },
  };
}
