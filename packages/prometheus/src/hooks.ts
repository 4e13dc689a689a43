import type { BreakerChange, Decision, StoreCallEvent, StoreErrorEvent } from '@floodgate/core';
import { decisionHook } from './decisions';
import { floodgateMetrics } from './metrics';
import { parseOptions } from './options';
import type { PrometheusHooksOptions } from './options';
import { breakerHook, storeCallHook, storeErrorHook } from './store-hooks';

/** The event hooks to spread into createLimiter's or any middleware's options. */
export interface PrometheusHooks {
  /** Counts every layer's verdict, and the near-limit ones. */
  onDecision: (event: { decision: Decision }) => void;
  /** Observes each remote store call's latency (RedisStore; a MemoryStore makes none). */
  onStoreCall: (event: StoreCallEvent) => void;
  /** Counts store failures by the error's code. */
  onStoreError: (event: StoreErrorEvent) => void;
  /** Sets the breaker state gauge of the partition that changed. */
  onBreakerChange: (change: BreakerChange) => void;
}

/**
 * Prometheus metrics for a limiter: registers five metrics (see the README) and returns the hooks
 * that feed them. Options are checked here, once; label children are made once per rule, code and
 * partition, so a request costs a Map lookup and one prom-client `inc()` per layer. Calling it again
 * with the same registry and prefix shares the metrics already there.
 *
 * Defaults: prom-client's global `register`, prefix `'floodgate_'`, `nearLimitShare` 0.2, store
 * latency buckets from 0.1 ms to 1 s.
 *
 * @example
 * import { Registry } from 'prom-client';
 * import { rateLimit } from '@floodgate/express';
 * import { prometheusHooks } from '@floodgate/prometheus';
 *
 * const registry = new Registry();
 * app.use(rateLimit({ limit: 100, window: '1m', ...prometheusHooks({ registry }) }));
 */
export function prometheusHooks(options?: PrometheusHooksOptions): PrometheusHooks {
  const config = parseOptions(options);
  const metrics = floodgateMetrics(config);
  return {
    onDecision: decisionHook(metrics, config.nearLimitShare),
    onStoreCall: storeCallHook(metrics),
    onStoreError: storeErrorHook(metrics),
    onBreakerChange: breakerHook(metrics),
  };
}
