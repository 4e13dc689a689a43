import { checkCost } from './algorithms/cost';
import { combine } from './decision';
import { InvalidOptionError, InvalidOptionTypeError, KeyFunctionError, show } from './errors';
import { encodeIdentity } from './keys/identity';
import { MemoryStore } from './memory-store';
import { functionOption, nameOption, rejectUnknownKeys, requireObject } from './validate';
import type { Algorithm } from './algorithms/types';
import type { Decision, LayerResult } from './decision';
import type { KeyContext, KeyFunction } from './keys/context';
import type { LayerCall, Store } from './store';

/** One layer of a policy: a name, how to identify the client, and the algorithm that limits it. */
export interface LimitRule<Req = unknown> {
  /** Appears in keys, headers and `Decision.rule`: 1-64 characters from `[A-Za-z0-9._-]`. */
  name: string;
  key: KeyFunction<Req>;
  algorithm: Algorithm;
}

export interface LimiterOptions<Req = unknown> {
  /** Where state lives. Default: a new MemoryStore using `clock`. */
  store?: Store;
  /** Start of every key. Default `'fg'`. */
  prefix?: string;
  /** The layers; a request passes only if every layer that applies allows it. */
  limits: readonly LimitRule<Req>[];
  /** Time source in epoch ms for a MemoryStore the limiter creates. Default `Date.now`. */
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
    layers.map(({ rule, key }) => ({ key, algorithm: rule.algorithm, cost: checkCost(rule.algorithm, cost, rule.name) }));

  return {
    prefix: config.prefix,
    store: config.store,
    rules: config.rules,
    async consume(ctx, consumeOptions = {}) {
      const layers = await layersOf(ctx);
      const calls = callsFor(layers, consumeOptions.cost ?? 1);
      const requestId = crypto.randomUUID();
      const outcomes = await config.store.consume(calls, requestId);
      const results: LayerResult[] = outcomes.map((outcome, index) => {
        const { rule } = layers[index] as Layer;
        return { rule: rule.name, kind: rule.algorithm.kind, window: rule.algorithm.window, ...outcome };
      });
      const decision = combine(results, false);
      const leases = calls.filter((call) => call.algorithm.kind === 'concurrency' && call.cost > 0);
      if (decision.allowed && leases.length > 0) decision.release = releaseOnce(config.store, leases, requestId);
      return decision;
    },
    async refund(ctx, refundOptions = {}) {
      const layers = await layersOf(ctx);
      const calls = callsFor(layers, refundOptions.cost ?? 1).filter((call) => call.algorithm.kind !== 'concurrency');
      if (calls.length > 0) await config.store.refund(calls, '');
    },
  };
}

function releaseOnce(store: Store, leases: LayerCall[], requestId: string): () => Promise<void> {
  let released: Promise<void> | undefined;
  return () => {
    released ??= store.refund(leases, requestId);
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

interface LimiterConfig<Req> {
  store: Store;
  prefix: string;
  rules: readonly LimitRule<Req>[];
}

function parseLimiterOptions<Req>(options: LimiterOptions<Req>): LimiterConfig<Req> {
  const raw = requireObject('createLimiter', options);
  rejectUnknownKeys('createLimiter', raw, ['store', 'prefix', 'limits', 'clock']);
  const prefix = raw.prefix === undefined ? 'fg' : nameOption('createLimiter.prefix', raw.prefix);
  const clock = raw.clock === undefined ? undefined : functionOption<() => number>('createLimiter.clock', raw.clock);
  const store = raw.store === undefined ? new MemoryStore(clock ? { clock } : {}) : parseStore(raw.store);
  if (clock !== undefined && store instanceof MemoryStore && store.clock !== clock) {
    throw new InvalidOptionError('createLimiter.clock differs from the clock of the MemoryStore given as store; pass one clock to both');
  }
  return { store, prefix, rules: parseRules(raw.limits) as readonly LimitRule<Req>[] };
}

function parseStore(value: unknown): Store {
  const store = value as Partial<Store> | null;
  if (typeof store !== 'object' || store === null || typeof store.consume !== 'function' || typeof store.refund !== 'function') {
    throw new InvalidOptionTypeError(`createLimiter.store must have consume() and refund() methods, got ${show(value)}`);
  }
  return store as Store;
}

function parseRules(value: unknown): readonly LimitRule[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new InvalidOptionTypeError(`createLimiter.limits must be a non-empty array of rules, got ${show(value)}`);
  }
  const seen = new Set<string>();
  return value.map((entry: unknown, index) => {
    const where = `createLimiter.limits[${index}]`;
    const rule = requireObject(where, entry);
    rejectUnknownKeys(where, rule, ['name', 'key', 'algorithm']);
    const name = nameOption(`${where}.name`, rule.name);
    if (seen.has(name)) throw new InvalidOptionError(`${where}.name ${show(name)} is used by another rule; names must be unique`);
    seen.add(name);
    const key = functionOption<KeyFunction>(`${where}.key`, rule.key);
    const algorithm = rule.algorithm as Partial<Algorithm> | undefined;
    if (typeof algorithm !== 'object' || algorithm === null || typeof algorithm.decide !== 'function') {
      throw new InvalidOptionTypeError(
        `${where}.algorithm must be made by an algorithm factory such as slidingWindow({ limit, window }), got ${show(rule.algorithm)}`,
      );
    }
    return { name, key, algorithm: algorithm as Algorithm };
  });
}
