import { DEFAULTS } from '../base/defaults';
import { timerOption, windowOption } from '../base/duration';
import { InvalidOptionTypeError, show } from '../base/errors';
import type { Duration } from '../base/duration';
import { functionOption, integerOption, oneOfOption, rejectUnknownKeys, requireObject } from '../base/validate';
import type { BreakerChange, BreakerSettings } from './breaker';
import type { Decision } from '../limiter/decision';
import type { KeyContext } from '../keys/context';

/** What the limiter does when the shared store is out of reach. */
export type FailMode = 'local' | 'open' | 'closed';

/** Circuit breaker settings; durations are ms or strings such as `'10 s'`. */
export interface BreakerOptions {
  /** Consecutive failures that open the breaker. Default 5. */
  failureThreshold?: number;
  /** The failures must fall within this span. Default `'10 s'`. */
  failureWindow?: Duration;
  /**
   * The longest the breaker stays open before it lets one probe through, however long the outage.
   * Default `'30 s'`.
   */
  cooldown?: Duration;
  /**
   * How long the breaker stays open the first time; each failed probe doubles it, up to the
   * cooldown, and each wait is drawn between half and all of that (jitter), so that instances do
   * not probe together. A store that reports its reconnect (RedisStore) is probed at once instead.
   * Default `'1 s'`.
   */
  probeInterval?: Duration;
}

/** Passed to `onDecision` and `onLimited`. */
export interface DecisionEvent<Req = unknown> {
  decision: Decision;
  ctx: KeyContext<Req>;
  /** The full store key of every layer that applied, in rule order. */
  keys: string[];
}

/** Passed to `onStoreError`: the store failed or missed the deadline, and the fallback answered. */
export interface StoreErrorEvent {
  error: unknown;
  operation: StoreOperation;
}

/** What a limiter asks of its store: a decision, a refund, or a control operation. */
export type StoreOperation = 'consume' | 'refund' | 'peek' | 'reset' | 'block' | 'unblock';

/** Passed to `onStoreCall` after every call to a remote store, successful or not. */
export interface StoreCallEvent {
  operation: StoreOperation;
  /** ms from the call to its answer (or to the deadline). */
  ms: number;
  ok: boolean;
}

/** Event hooks. A hook that throws (or returns a promise that rejects) never reaches the request. */
export interface LimiterEvents<Req = unknown> {
  onDecision?: (event: DecisionEvent<Req>) => unknown;
  onLimited?: (event: DecisionEvent<Req>) => unknown;
  onStoreError?: (event: StoreErrorEvent) => unknown;
  onBreakerChange?: (change: BreakerChange) => unknown;
  /** Every call to a remote store (RedisStore), with its latency: for metrics. Not called for a MemoryStore. */
  onStoreCall?: (event: StoreCallEvent) => unknown;
}

/** The local deny cache: `true` (default), `false`, or a bound on the keys it holds. */
export type DenyCacheOption = boolean | { maxKeys?: number };

/**
 * Resilience options of createLimiter; all optional. They apply to a remote store (RedisStore).
 *
 * @example
 * createLimiter({ store, limits, timeout: '50ms', failMode: 'local', instances: 4, breaker: { cooldown: '10 s' } })
 */
export interface ResilienceOptions<Req = unknown> extends LimiterEvents<Req> {
  /** Deadline of every store call. Default 100 ms. */
  timeout?: Duration;
  /** `'local'` (default): decide with a local store; `'open'`: allow; `'closed'`: deny with 503. */
  failMode?: FailMode;
  /** Instances sharing the store; the local fallback admits each layer's limit divided by this. Default 1. */
  instances?: number;
  breaker?: BreakerOptions;
  denyCache?: DenyCacheOption;
}

/** The resilience options, checked and defaulted (durations in ms; `denyCacheKeys` undefined when off). */
export interface ResilienceConfig {
  timeout: number;
  failMode: FailMode;
  instances: number;
  breaker: BreakerSettings;
  /** Undefined when the deny cache is off. */
  denyCacheKeys: number | undefined;
  hooks: LimiterEvents;
}

/** The option names parseResilienceOptions reads, for createLimiter's unknown-key check. */
export const RESILIENCE_KEYS = [
  'timeout',
  'failMode',
  'instances',
  'breaker',
  'denyCache',
  'onDecision',
  'onLimited',
  'onStoreError',
  'onBreakerChange',
  'onStoreCall',
] as const;

const HOOKS = ['onDecision', 'onLimited', 'onStoreError', 'onBreakerChange', 'onStoreCall'] as const;

/** Reads the resilience part of createLimiter's (already object-checked) options. */
export function parseResilienceOptions(raw: Record<string, unknown>): ResilienceConfig {
  const hooks: Record<string, unknown> = {};
  for (const name of HOOKS) {
    if (raw[name] !== undefined) hooks[name] = functionOption(`createLimiter.${name}`, raw[name]);
  }
  return {
    timeout: raw.timeout === undefined ? DEFAULTS.timeout : timerOption('createLimiter.timeout', raw.timeout),
    failMode:
      raw.failMode === undefined
        ? DEFAULTS.failMode
        : oneOfOption('createLimiter.failMode', raw.failMode, ['local', 'open', 'closed']),
    instances:
      raw.instances === undefined ? DEFAULTS.instances : integerOption('createLimiter.instances', raw.instances, 1),
    breaker: parseBreaker(raw.breaker),
    denyCacheKeys: parseDenyCache(raw.denyCache),
    hooks: hooks as LimiterEvents,
  };
}

function parseBreaker(value: unknown): BreakerSettings {
  const raw = value === undefined ? {} : requireObject('createLimiter.breaker', value);
  rejectUnknownKeys('createLimiter.breaker', raw, ['failureThreshold', 'failureWindow', 'cooldown', 'probeInterval']);
  const where = 'createLimiter.breaker';
  return {
    failureThreshold:
      raw.failureThreshold === undefined
        ? DEFAULTS.breaker.failureThreshold
        : integerOption(`${where}.failureThreshold`, raw.failureThreshold, 1),
    failureWindow:
      raw.failureWindow === undefined
        ? DEFAULTS.breaker.failureWindow
        : windowOption(`${where}.failureWindow`, raw.failureWindow),
    cooldown: raw.cooldown === undefined ? DEFAULTS.breaker.cooldown : windowOption(`${where}.cooldown`, raw.cooldown),
    probeInterval:
      raw.probeInterval === undefined
        ? DEFAULTS.breaker.probeInterval
        : windowOption(`${where}.probeInterval`, raw.probeInterval),
  };
}

function parseDenyCache(value: unknown): number | undefined {
  if (value === undefined || value === true) return DEFAULTS.denyCacheKeys;
  if (value === false) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidOptionTypeError(`createLimiter.denyCache must be true, false or { maxKeys }, got ${show(value)}`);
  }
  const raw = value as Record<string, unknown>;
  rejectUnknownKeys('createLimiter.denyCache', raw, ['maxKeys']);
  return raw.maxKeys === undefined
    ? DEFAULTS.denyCacheKeys
    : integerOption('createLimiter.denyCache.maxKeys', raw.maxKeys, 1);
}
