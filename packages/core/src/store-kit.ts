// @floodgate/core/store: what a store needs beyond the user API (RedisStore uses it; so can yours).
export type { LayerCall, LayerOutcome, Penalty, Store } from './store/store';
export type { Outcome } from './algorithms/types';
export type { PartitionedStore } from './resilience/guarded-store';
export { Deadlines, withDeadline } from './resilience/deadline';
export { MAX_TIMER_MS, timerOption, windowOption } from './base/duration';
export { show } from './base/errors';
export { usableLimit } from './algorithms/reserve';
export { functionOption, oneOfOption, rejectUnknownKeys, requireObject } from './base/validate';
export { consoleWarning, onceWarner } from './base/warnings';
export type { Warn } from './base/warnings';
export { consumeLayers, peekLayers, quotaSpent } from './store/layer-decisions';
export type { LayerStates } from './store/layer-decisions';
