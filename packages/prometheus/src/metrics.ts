import { InvalidOptionError } from '@floodgate/core';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { PrometheusConfig } from './options';

/** The metrics behind the hooks; names start with the configured prefix. */
export interface FloodgateMetrics {
  /** `<prefix>decisions_total{rule, outcome, degraded}`: one per layer of every decided request. */
  decisions: Counter<'rule' | 'outcome' | 'degraded'>;
  /** `<prefix>near_limit_total{rule}`: layers that allowed with less than the near-limit share left. */
  nearLimit: Counter<'rule'>;
  /** `<prefix>store_call_duration_seconds{operation, outcome}`: every call to a remote store. */
  storeCallDuration: Histogram<'operation' | 'outcome'>;
  /** `<prefix>store_errors_total{operation, code}`: store failures the fallback answered for. */
  storeErrors: Counter<'operation' | 'code'>;
  /** `<prefix>breaker_state{partition}`: 0 closed, 1 half-open, 2 open. */
  breakerState: Gauge<'partition'>;
}

/** What prom-client's metric objects hold at run time, read to tell whether a registered one is ours. */
interface RegisteredShape {
  type?: string;
  labelNames?: readonly string[];
  upperBounds?: readonly number[];
}

/**
 * Creates the metrics in the registry, or takes the ones a previous call registered there under
 * the same names, so several middlewares (or one hooks object per limiter) can share a registry.
 */
export function floodgateMetrics({ registry, prefix, buckets }: PrometheusConfig): FloodgateMetrics {
  const name = (suffix: string) => `${prefix}${suffix}`;
  return {
    decisions:
      reuse(registry, name('decisions_total'), 'counter', ['rule', 'outcome', 'degraded']) ??
      new Counter({
        name: name('decisions_total'),
        help: 'Rate-limit verdicts, one per rule that applied to a request, by rule, outcome (allowed, denied, shadow_denied, unavailable) and whether the store was out of reach (degraded).',
        labelNames: ['rule', 'outcome', 'degraded'],
        registers: [registry],
      }),
    nearLimit:
      reuse(registry, name('near_limit_total'), 'counter', ['rule']) ??
      new Counter({
        name: name('near_limit_total'),
        help: 'Allowed verdicts that left less than the near-limit share of the limit, by rule.',
        labelNames: ['rule'],
        registers: [registry],
      }),
    storeCallDuration:
      reuse(registry, name('store_call_duration_seconds'), 'histogram', ['operation', 'outcome'], buckets) ??
      new Histogram({
        name: name('store_call_duration_seconds'),
        help: 'Latency of calls to the shared store (RedisStore), by operation (consume, refund, ...) and outcome (ok, error).',
        labelNames: ['operation', 'outcome'],
        buckets,
        registers: [registry],
      }),
    storeErrors:
      reuse(registry, name('store_errors_total'), 'counter', ['operation', 'code']) ??
      new Counter({
        name: name('store_errors_total'),
        help: "Store failures (a call that failed or missed its deadline, a refund dropped while the breaker was open), by operation and the error's code.",
        labelNames: ['operation', 'code'],
        registers: [registry],
      }),
    breakerState:
      reuse(registry, name('breaker_state'), 'gauge', ['partition']) ??
      new Gauge({
        name: name('breaker_state'),
        help: 'Circuit breaker state per store partition: 0 closed, 1 half-open, 2 open.',
        labelNames: ['partition'],
        registers: [registry],
      }),
  };
}

/** The metric already registered under `name` when it has our shape; throws when something else holds the name. */
function reuse<M>(
  registry: Registry,
  name: string,
  type: string,
  labelNames: readonly string[],
  buckets?: readonly number[],
): M | undefined {
  const found = registry.getSingleMetric(name);
  if (found === undefined) return undefined;
  const shape = found as unknown as RegisteredShape;
  const same =
    shape.type === type &&
    sameItems(shape.labelNames, labelNames) &&
    (buckets === undefined || sameItems(shape.upperBounds, buckets));
  if (!same) {
    throw new InvalidOptionError(
      `prometheusHooks: the registry already holds a metric named "${name}" of another shape (${shape.type} with labels ${shape.labelNames?.join(', ')}); pass another prefix or registry, or the same buckets as before`,
    );
  }
  return found as unknown as M;
}

function sameItems<T>(a: readonly T[] | undefined, b: readonly T[]): boolean {
  return a !== undefined && a.length === b.length && a.every((value, i) => value === b[i]);
}
