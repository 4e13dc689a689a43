import { timerOption } from '../base/duration';
import { InvalidOptionError, InvalidOptionTypeError, show } from '../base/errors';
import {
  functionOption,
  integerOption,
  nameOption,
  oneOfOption,
  positiveNumberOption,
  rejectUnknownKeys,
  requireObject,
} from '../base/validate';
import type { Duration } from '../base/duration';
import type { PriorityFunction } from '../limiter/types';
import type { AdaptiveSnapshot } from './controller';

export type AdaptiveAlgorithm = 'gradient2' | 'vegas';

/** Options of `adaptiveConcurrency()`; every one has a default. */
export interface AdaptiveConcurrencyOptions<Req = unknown> {
  /** How the limit follows latency. Default `'vegas'` (the core README says why, from `pnpm bench:adaptive`). */
  algorithm?: AdaptiveAlgorithm;
  /** The layer's name in `RateLimit-Policy` and in events. Default `'adaptive'`. */
  name?: string;
  /** The limit before any latency is known. Default 20. */
  initialLimit?: number;
  /** The limit never falls below this. Default 4. */
  minLimit?: number;
  /** The limit never rises above this. Default 1000. */
  maxLimit?: number;
  /** Weight of each new estimate, in (0, 1]. Default 1 for Vegas, 0.2 for Gradient2. */
  smoothing?: number;
  /** Completed requests folded into one estimate (their mean latency). Default 10. */
  window?: number;
  /** Gradient2: estimates the long-term RTT averages over. Default 600. */
  longWindow?: number;
  /** Gradient2: how much slower than the long-term RTT a request may be before the limit shrinks. Default 1.5. */
  tolerance?: number;
  /** Gradient2: requests allowed to queue on top of the gradient. Default 4. */
  queueSize?: number;
  /**
   * How often the baseline latency is measured afresh: the limit is held at `minLimit` for one
   * window, so the requests then admitted meet no queue (Envoy's minRTT probe). Drawn between half
   * and all of this. Default `'15s'`.
   */
  probeInterval?: Duration;
  /**
   * Fraction of the limit kept for critical requests, in [0, 1): when the limit shrinks, normal
   * requests are shed first (Netflix's partitions, Stripe's critical reserve). Default 0.
   */
  reserve?: number;
  /**
   * Which requests may use the reserve. Default: the middleware's `priority` (a route's
   * `.critical`, or its function). Decide it from what the server established, never from a header.
   */
  priority?: PriorityFunction<Req>;
  /** Retry-After of a shed request. Default `'1s'`. */
  retryAfter?: Duration;
  /** A monotonic clock in ms. Default `performance.now`. */
  clock?: () => number;
  /** Called when the limit changes (for metrics or a log line); never throws into a request. */
  onLimitChange?: (snapshot: AdaptiveSnapshot) => void;
  /** Draws the probe jitter in [0, 1). Default `Math.random`; for deterministic tests. */
  random?: () => number;
}

const KEYS = [
  'algorithm',
  'name',
  'initialLimit',
  'minLimit',
  'maxLimit',
  'smoothing',
  'window',
  'longWindow',
  'tolerance',
  'queueSize',
  'probeInterval',
  'reserve',
  'priority',
  'retryAfter',
  'clock',
  'onLimitChange',
  'random',
];
const ONLY_FOR: Record<string, AdaptiveAlgorithm> = {
  longWindow: 'gradient2',
  tolerance: 'gradient2',
  queueSize: 'gradient2',
};

const WHERE = 'adaptiveConcurrency';

/** The options checked and defaulted. */
export interface AdaptiveConfig {
  algorithm: AdaptiveAlgorithm;
  name: string;
  initialLimit: number;
  minLimit: number;
  maxLimit: number;
  smoothing: number;
  window: number;
  longWindow: number;
  tolerance: number;
  queueSize: number;
  probeInterval: number;
  reserve: number;
  priority: PriorityFunction<unknown> | undefined;
  retryAfter: number;
  now: () => number;
  onLimitChange: ((snapshot: AdaptiveSnapshot) => void) | undefined;
  random: () => number;
}

export function parseAdaptiveOptions(options: unknown): AdaptiveConfig {
  const raw = requireObject(WHERE, options);
  rejectUnknownKeys(WHERE, raw, KEYS);
  const algorithm =
    raw.algorithm === undefined ? 'vegas' : oneOfOption(`${WHERE}.algorithm`, raw.algorithm, ['gradient2', 'vegas']);
  for (const [key, owner] of Object.entries(ONLY_FOR)) {
    if (raw[key] !== undefined && owner !== algorithm) {
      throw new InvalidOptionTypeError(
        `${WHERE}.${key} applies to algorithm '${owner}' only, and the algorithm is '${algorithm}'`,
      );
    }
  }
  const limit = (key: string, fallback: number) =>
    raw[key] === undefined ? fallback : integerOption(`${WHERE}.${key}`, raw[key], 1);
  const minLimit = limit('minLimit', 4);
  const maxLimit = limit('maxLimit', 1000);
  const initialLimit = limit('initialLimit', Math.min(maxLimit, Math.max(minLimit, 20)));
  if (!(minLimit <= initialLimit && initialLimit <= maxLimit)) {
    throw new InvalidOptionError(
      `${WHERE}: minLimit <= initialLimit <= maxLimit must hold, got minLimit ${minLimit}, initialLimit ${initialLimit}, maxLimit ${maxLimit}`,
    );
  }
  return {
    algorithm,
    name: raw.name === undefined ? 'adaptive' : nameOption(`${WHERE}.name`, raw.name),
    initialLimit,
    minLimit,
    maxLimit,
    smoothing: fraction('smoothing', raw.smoothing, algorithm === 'vegas' ? 1 : 0.2, true),
    window: limit('window', 10),
    longWindow: limit('longWindow', 600),
    tolerance: raw.tolerance === undefined ? 1.5 : atLeastOne('tolerance', raw.tolerance),
    queueSize: raw.queueSize === undefined ? 4 : integerOption(`${WHERE}.queueSize`, raw.queueSize, 0),
    probeInterval: timerOption(`${WHERE}.probeInterval`, raw.probeInterval ?? '15s'),
    reserve: fraction('reserve', raw.reserve, 0, false),
    priority: optionalFunction(raw, 'priority'),
    retryAfter: timerOption(`${WHERE}.retryAfter`, raw.retryAfter ?? '1s'),
    now: optionalFunction<() => number>(raw, 'clock') ?? defaultClock(),
    onLimitChange: optionalFunction(raw, 'onLimitChange'),
    random: optionalFunction<() => number>(raw, 'random') ?? Math.random,
  };
}

/** A fraction: in (0, 1] when `upToOne` (smoothing), else in [0, 1) (reserve). */
function fraction(key: string, value: unknown, fallback: number, upToOne: boolean): number {
  if (value === undefined) return fallback;
  const range = upToOne ? 'in (0, 1]' : 'in [0, 1)';
  if (typeof value !== 'number') {
    throw new InvalidOptionTypeError(`${WHERE}.${key} must be a number ${range}, got ${show(value)}`);
  }
  const ok = upToOne ? value > 0 && value <= 1 : value >= 0 && value < 1;
  if (!ok) throw new InvalidOptionError(`${WHERE}.${key} must be a number ${range}, got ${show(value)}`);
  return value;
}

function atLeastOne(key: string, value: unknown): number {
  const number = positiveNumberOption(`${WHERE}.${key}`, value);
  if (number < 1) throw new InvalidOptionError(`${WHERE}.${key} must be a number >= 1, got ${show(value)}`);
  return number;
}

function optionalFunction<F>(raw: Record<string, unknown>, key: string): F | undefined {
  return raw[key] === undefined ? undefined : functionOption<F>(`${WHERE}.${key}`, raw[key]);
}

/** performance.now where the runtime has it (Node, Bun, Deno, workers), else Date.now. */
function defaultClock(): () => number {
  const performance = (globalThis as { performance?: { now(): number } }).performance;
  return typeof performance?.now === 'function' ? () => performance.now() : Date.now;
}
