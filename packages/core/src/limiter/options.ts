import { DEFAULTS } from '../base/defaults';
import { InvalidOptionError, InvalidOptionTypeError, show } from '../base/errors';
import { checkedClock } from '../base/clock';
import { MemoryStore } from '../store/memory-store';
import { consoleWarning, onceWarner } from '../base/warnings';
import { parseResilienceOptions, RESILIENCE_KEYS } from '../resilience/options';
import { booleanOption, functionOption, nameOption, rejectUnknownKeys, requireObject } from '../base/validate';
import { parseRules } from './rules';
import { isLimitsFeed } from './live-limits';
import type { LimitsFeed } from './live-limits';
import type { LimiterOptions, LimitRule, PriorityFunction } from './types';
import type { CompiledRule } from './rules';
import type { ResilienceConfig } from '../resilience/options';
import type { Store } from '../store/store';
import type { FloodgateWarning, Warn } from '../base/warnings';

/** Every option createLimiter reads; the adapters pass exactly these through. */
export const LIMITER_KEYS = [
  'store',
  'prefix',
  'limits',
  'shadow',
  'priority',
  'clock',
  'onWarning',
  ...RESILIENCE_KEYS,
] as const;

/** createLimiter's options, checked and defaulted. */
export interface LimiterConfig<Req> {
  store: Store;
  prefix: string;
  rules: readonly CompiledRule<Req>[];
  clock: () => number;
  /** Where warnings go, each code once: the user's onWarning, else the console. */
  warn: Warn;
  resilience: ResilienceConfig;
  /** Set when `limits` was a feed: the engine follows it, checking each update with `compile`. */
  feed?: LimitsFeed<Req> | undefined;
  compile: (rules: readonly LimitRule<Req>[]) => CompiledRule<Req>[];
}

/**
 * Validates createLimiter's options once; never mutates the caller's object. `allowNoRules`: a
 * middleware whose only layer is adaptiveConcurrency() has no stored rules.
 */
export function parseLimiterOptions<Req>(options: LimiterOptions<Req>, allowNoRules = false): LimiterConfig<Req> {
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
  const shadow = raw.shadow === undefined ? false : booleanOption('createLimiter.shadow', raw.shadow);
  const priority =
    raw.priority === undefined
      ? undefined
      : functionOption<PriorityFunction<Req>>('createLimiter.priority', raw.priority);
  const compile = (rules: unknown) => parseRules<Req>(rules, shadow, priority, allowNoRules);
  const feed = isLimitsFeed(raw.limits) ? (raw.limits as LimitsFeed<Req>) : undefined;
  return {
    store,
    prefix,
    rules: compile(feed === undefined ? raw.limits : feed.rules),
    feed,
    compile,
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
