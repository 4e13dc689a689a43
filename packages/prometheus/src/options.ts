import { InvalidOptionError, InvalidOptionTypeError } from '@floodgate/core';
import { rejectUnknownKeys, requireObject, show } from '@floodgate/core/store';
import { register } from 'prom-client';
import type { Registry } from 'prom-client';

/** Options of `prometheusHooks`; all optional. */
export interface PrometheusHooksOptions {
  /** Where the metrics are registered. Default: prom-client's global `register`. */
  registry?: Registry;
  /** Start of every metric name. Default `'floodgate_'`. */
  prefix?: string;
  /** A layer that allowed with `remaining < nearLimitShare × limit` is near its limit. Default 0.2. */
  nearLimitShare?: number;
  /** Upper bounds of the store latency histogram, in seconds, ascending. Default {@link DEFAULT_BUCKETS}. */
  buckets?: readonly number[];
}

/**
 * Store latency buckets in seconds: a healthy Redis answers in well under a millisecond, the
 * limiter's deadline is 100 ms by default, and a call that hits it lands in the 0.1 s bucket.
 */
export const DEFAULT_BUCKETS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
];

/** Every default in one place. */
export const DEFAULTS = {
  prefix: 'floodgate_',
  nearLimitShare: 0.2,
  buckets: DEFAULT_BUCKETS,
} as const;

/** The options, checked and defaulted. */
export interface PrometheusConfig {
  registry: Registry;
  prefix: string;
  nearLimitShare: number;
  buckets: number[];
}

const KEYS = ['registry', 'prefix', 'nearLimitShare', 'buckets'];
const WHERE = 'prometheusHooks';
/** Prometheus' metric name grammar; the empty prefix is allowed. */
const METRIC_PREFIX = /^([a-zA-Z_:][a-zA-Z0-9_:]*)?$/;

/** Turns the user's options into a config; throws ERR_FLOODGATE_INVALID_OPTION naming the option. */
export function parseOptions(options: unknown): PrometheusConfig {
  const raw = options === undefined ? {} : requireObject(WHERE, options);
  rejectUnknownKeys(WHERE, raw, KEYS);
  return {
    registry: raw.registry === undefined ? register : registryOption(raw.registry),
    prefix: raw.prefix === undefined ? DEFAULTS.prefix : prefixOption(raw.prefix),
    nearLimitShare: raw.nearLimitShare === undefined ? DEFAULTS.nearLimitShare : shareOption(raw.nearLimitShare),
    buckets: raw.buckets === undefined ? [...DEFAULTS.buckets] : bucketsOption(raw.buckets),
  };
}

export function registryOption(value: unknown, WHERE = 'prometheusHooks'): Registry {
  const candidate = value as Partial<Registry> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.registerMetric !== 'function' ||
    typeof candidate.getSingleMetric !== 'function'
  ) {
    throw new InvalidOptionTypeError(`${WHERE}.registry must be a prom-client Registry, got ${show(value)}`);
  }
  return value as Registry;
}

export function prefixOption(value: unknown, WHERE = 'prometheusHooks'): string {
  if (typeof value !== 'string' || !METRIC_PREFIX.test(value)) {
    throw new InvalidOptionTypeError(
      `${WHERE}.prefix must be empty or start a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), got ${show(value)}`,
    );
  }
  return value;
}

function shareOption(value: unknown): number {
  if (typeof value !== 'number') {
    throw new InvalidOptionTypeError(`${WHERE}.nearLimitShare must be a number in (0, 1], got ${show(value)}`);
  }
  if (!(value > 0 && value <= 1)) {
    throw new InvalidOptionError(`${WHERE}.nearLimitShare must be a number in (0, 1], got ${show(value)}`);
  }
  return value;
}

function bucketsOption(value: unknown): number[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new InvalidOptionTypeError(`${WHERE}.buckets must be a non-empty array of seconds, got ${show(value)}`);
  }
  const buckets: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const bound: unknown = value[i];
    const previous = buckets[i - 1] ?? 0;
    if (typeof bound !== 'number' || !Number.isFinite(bound) || bound <= previous) {
      throw new InvalidOptionError(
        `${WHERE}.buckets[${i}] must be a finite number of seconds above ${previous}, got ${show(bound)}`,
      );
    }
    buckets.push(bound);
  }
  return buckets;
}
