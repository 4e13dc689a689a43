export { AdaptiveConcurrency, adaptiveConcurrency, isAdaptiveLayer } from './adaptive-concurrency';
export type { AdaptiveSnapshot, AdaptiveSlot } from './controller';
export type { AdaptiveAlgorithm, AdaptiveConcurrencyOptions } from './options';
