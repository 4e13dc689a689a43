// @floodgate/core/store: what a store needs beyond the user API (RedisStore uses it; so can yours).
export type { LayerCall, LayerOutcome, Penalty, Store } from './store';
export type { Outcome } from './algorithms/types';
export type { PartitionedStore } from './resilience/guarded-store';
export { Deadlines, withDeadline } from './resilience/deadline';
export { MAX_TIMER_MS, timerOption, windowOption } from './duration';
export { show } from './errors';
export { usableLimit } from './algorithms/reserve';
export { functionOption, oneOfOption, rejectUnknownKeys, requireObject } from './validate';
export { consoleWarning, onceWarner } from './warnings';
export type { Warn } from './warnings';
export { consumeLayers, peekLayers, quotaSpent } from './layer-decisions';
export type { LayerStates } from './layer-decisions';
