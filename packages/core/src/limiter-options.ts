import { DEFAULTS } from './defaults';
import { InvalidOptionError, InvalidOptionTypeError, show } from './errors';
import { checkedClock } from './clock';
import { MemoryStore } from './memory-store';
import { consoleWarning, onceWarner } from './warnings';
import { parseResilienceOptions, RESILIENCE_KEYS } from './resilience/options';
import { functionOption, nameOption, rejectUnknownKeys, requireObject } from './validate';
import type { Algorithm } from './algorithms/types';
import type { KeyFunction } from './keys/context';
import type { LimitRule, LimiterOptions } from './limiter-types';
import type { ResilienceConfig } from './resilience/options';
import type { Store } from './store';
import type { FloodgateWarning, Warn } from './warnings';

/** Every option createLimiter reads; the adapters pass exactly these through. */
export const LIMITER_KEYS = ['store', 'prefix', 'limits', 'clock', 'onWarning', ...RESILIENCE_KEYS] as const;

/** createLimiter's options, checked and defaulted. */
export interface LimiterConfig<Req> {
  store: Store;
  prefix: string;
  rules: readonly LimitRule<Req>[];
  clock: () => number;
  /** Where warnings go, each code once: the user's onWarning, else the console. */
  warn: Warn;
  resilience: ResilienceConfig;
}

/** Validates createLimiter's options once; never mutates the caller's object. */
export function parseLimiterOptions<Req>(options: LimiterOptions<Req>): LimiterConfig<Req> {
  const raw = requireObject('createLimiter', options);
  rejectUnknownKeys('createLimiter', raw, LIMITER_KEYS);
  const prefix = raw.prefix === undefined ? DEFAULTS.prefix : nameOption('createLimiter.prefix', raw.prefix);
  const onWarning =
    raw.onWarning === undefined
      ? consoleWarning
      : functionOption<(warning: FloodgateWarning) => void>('createLimiter.onWarning', raw.onWarning);
  const warn = onceWarner(onWarning);
  const clock = raw.clock === undefined ? undefined : functionOption<() => number>('createLimiter.clock', raw.clock);
  // A store made here reads the limiter's clock, checked, so that a bad reading is reported to onWarning.
  const store =
    raw.store === undefined
      ? new MemoryStore(clock ? { clock: checkedClock(clock, 'createLimiter.clock', warn) } : {})
      : parseStore(raw.store);
  if (raw.store !== undefined && clock !== undefined && store instanceof MemoryStore && store.clock !== clock) {
    throw new InvalidOptionError(
      'createLimiter.clock differs from the clock of the MemoryStore given as store; pass one clock to both',
    );
  }
  return {
    store,
    prefix,
    rules: parseRules(raw.limits) as readonly LimitRule<Req>[],
    clock: clock ?? Date.now,
    warn,
    resilience: parseResilienceOptions(raw),
  };
}

function parseStore(value: unknown): Store {
  const store = value as Partial<Store> | null;
  if (
    typeof store !== 'object' ||
    store === null ||
    typeof store.consume !== 'function' ||
    typeof store.refund !== 'function'
  ) {
    throw new InvalidOptionTypeError(
      `createLimiter.store must have consume() and refund() methods, got ${show(value)}`,
    );
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
    if (seen.has(name))
      throw new InvalidOptionError(`${where}.name ${show(name)} is used by another rule; names must be unique`);
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
