export { prometheusHooks } from './hooks';
export type { PrometheusHooks } from './hooks';
export { DEFAULT_BUCKETS } from './options';
export type { PrometheusHooksOptions } from './options';
export { adaptiveMetrics } from './adaptive';
export type { AdaptiveMetricsOptions } from './adaptive';
