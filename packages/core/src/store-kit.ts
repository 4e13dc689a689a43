// @floodgate/core/store: what a store needs beyond the user API (RedisStore uses it; so can yours).
export type { LayerCall, LayerOutcome, Store } from './store';
export type { Outcome } from './algorithms/types';
export type { PartitionedStore } from './resilience/guarded-store';
export { withDeadline } from './resilience/deadline';
export { MAX_TIMER_MS, timerOption, windowOption } from './duration';
export { show } from './errors';
export { functionOption, oneOfOption, rejectUnknownKeys, requireObject } from './validate';
export { consoleWarning, onceWarner } from './warnings';
export type { Warn } from './warnings';
