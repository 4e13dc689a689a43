import { checkCost } from './algorithms/cost';
import { combine } from './decision';
import { KeyFunctionError, show } from './errors';
import { encodeIdentity } from './keys/identity';
import { parseLimiterOptions } from './limiter-options';
import { safeEvents } from './resilience/events';
import { guardStore } from './resilience/guarded-store';
import type { Algorithm } from './algorithms/types';
import type { Decision, LayerResult } from './decision';
import type { KeyContext, KeyFunction } from './keys/context';
import type { GuardedAnswer } from './resilience/guarded-store';
import type { ResilienceOptions } from './resilience/options';
import type { LayerCall, Store } from './store';

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

interface Layer {
  rule: LimitRule;
  key: string;
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
  const events = safeEvents(config.resilience.hooks);
  const store = guardStore(config.store, config.resilience, events, config.clock);
  const resolved = new WeakMap<object, Promise<Layer[]>>();

  const layersOf = (ctx: KeyContext<Req>): Promise<Layer[]> => {
    let layers = resolved.get(ctx);
    if (layers === undefined) {
      layers = resolveLayers(config.prefix, config.rules as readonly LimitRule[], ctx as KeyContext);
      resolved.set(ctx, layers);
    }
    return layers;
  };

  const callsFor = (layers: Layer[], cost: number): LayerCall[] =>
    layers.map(({ rule, key }) => ({
      key,
      algorithm: rule.algorithm,
      cost: checkCost(rule.algorithm, cost, rule.name),
    }));

  return {
    prefix: config.prefix,
    store: config.store,
    rules: config.rules,
    async consume(ctx, consumeOptions = {}) {
      const layers = await layersOf(ctx);
      const calls = callsFor(layers, consumeOptions.cost ?? 1);
      const requestId = crypto.randomUUID();
      const answer = await store.consume(calls, requestId);
      const decision = decide(layers, answer);
      const leases = calls.filter((call) => call.algorithm.kind === 'concurrency' && call.cost > 0);
      if (decision.allowed && leases.length > 0) decision.release = releaseOnce(answer, leases, requestId);
      if (events.wantsDecisions) events.decision({ decision, ctx: ctx as KeyContext, keys: calls.map((c) => c.key) });
      return decision;
    },
    async refund(ctx, refundOptions = {}) {
      // Concurrency slots are given back by release(); a refund leaves them, and their max, alone.
      const layers = (await layersOf(ctx)).filter(({ rule }) => rule.algorithm.kind !== 'concurrency');
      const calls = callsFor(layers, refundOptions.cost ?? 1);
      if (calls.length > 0) await store.refund(calls);
    },
  };
}

function decide(layers: Layer[], answer: GuardedAnswer): Decision {
  const results: LayerResult[] = answer.outcomes.map((outcome, index) => {
    const { rule } = layers[index] as Layer;
    return { rule: rule.name, kind: rule.algorithm.kind, window: rule.algorithm.window, ...outcome };
  });
  const decision = combine(results, answer.degraded);
  if (answer.unavailable) decision.unavailable = true;
  return decision;
}

function releaseOnce(answer: GuardedAnswer, leases: LayerCall[], requestId: string): () => Promise<void> {
  let released: Promise<void> | undefined;
  return () => {
    released ??= answer.release(leases, requestId);
    return released;
  };
}

async function resolveLayers(prefix: string, rules: readonly LimitRule[], ctx: KeyContext): Promise<Layer[]> {
  const identities = await Promise.all(rules.map((rule) => identify(rule, ctx)));
  const layers: Layer[] = [];
  for (const [index, identity] of identities.entries()) {
    const rule = rules[index] as LimitRule;
    if (identity !== undefined) layers.push({ rule, key: `${prefix}:${rule.name}:{${identity}}` });
  }
  return layers;
}

async function identify(rule: LimitRule, ctx: KeyContext): Promise<string | undefined> {
  let value: unknown;
  try {
    value = await rule.key(ctx);
  } catch (error) {
    throw new KeyFunctionError(rule.name, error);
  }
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    throw new KeyFunctionError(rule.name, `expected a string or undefined, got ${show(value)}`);
  }
  return encodeIdentity(value);
}
