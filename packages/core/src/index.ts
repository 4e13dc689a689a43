// The user API. Store authors: @floodgate/core/store. Adapter authors: @floodgate/core/http.
export { createLimiter } from './limiter/limiter';
export type {
  ConsumeOptions,
  Limiter,
  LimiterOptions,
  LimitRule,
  Priority,
  PriorityFunction,
  RuleSelector,
} from './limiter/types';
export { MemoryStore } from './store/memory-store';
export type { MemoryStoreOptions } from './store/memory-store';
export type { Store } from './store/store';

export { fixedWindow } from './algorithms/fixed-window';
export type { FixedWindowOptions } from './algorithms/fixed-window';
export { slidingLog } from './algorithms/sliding-log';
export type { SlidingLogOptions } from './algorithms/sliding-log';
export { slidingWindow } from './algorithms/sliding-window';
export type { SlidingWindowOptions } from './algorithms/sliding-window';
export { tokenBucket } from './algorithms/token-bucket';
export type { TokenBucketOptions } from './algorithms/token-bucket';
export { leakyBucket } from './algorithms/leaky-bucket';
export type { LeakyBucketOptions } from './algorithms/leaky-bucket';
export { gcra } from './algorithms/gcra';
export type { GcraOptions } from './algorithms/gcra';
export { concurrency } from './algorithms/concurrency';
export type { ConcurrencyOptions } from './algorithms/concurrency';
export type { Algorithm, AlgorithmKind } from './algorithms/types';
export { adaptiveConcurrency } from './adaptive';
export type { AdaptiveAlgorithm, AdaptiveConcurrency, AdaptiveConcurrencyOptions, AdaptiveSnapshot } from './adaptive';

export { byIp } from './keys/by-ip';
export type { ByIpOptions } from './keys/by-ip';
export { byHeader } from './keys/by-header';
export type { ByHeaderOptions } from './keys/by-header';
export { byApiKey } from './keys/by-api-key';
export type { ByApiKeyOptions } from './keys/by-api-key';
export { byUser } from './keys/by-user';
export type { UserId } from './keys/by-user';
export type { KeyContext, KeyFunction } from './keys/context';
export type { KeyScope } from './keys/scope';
export { layered } from './limiter/layered';
export type { ApiKeyLayer, IpLayer, LayeredOptions, UserLayer } from './limiter/layered';

export type { Decision, LayerResult } from './limiter/decision';
export type { RateLimitInfo } from './http/types';
export { buildHeaders } from './http/headers';
export type { HeaderOptions, StandardHeaders } from './http/headers';
export type { PartitionKeyOptions } from './http/partition-key';
export { rulesFromDocument } from './limiter/limits-document';
export type { DocumentOptions } from './limiter/limits-document';
export { limitsPublisher } from './limiter/live-limits';
export type { LimitsFeed, LimitsPublisher, LimitsUpdate } from './limiter/live-limits';
export { parseDuration } from './base/duration';
export type { Duration } from './base/duration';

export type {
  BreakerOptions,
  DecisionEvent,
  DenyCacheOption,
  FailMode,
  LimiterEvents,
  ResilienceOptions,
  StoreCallEvent,
  StoreErrorEvent,
} from './resilience/options';
export type { BreakerChange, BreakerState } from './resilience/breaker';
export { WarningCode } from './base/warnings';
export type { FloodgateWarning } from './base/warnings';
export {
  FloodgateError,
  InvalidCostError,
  InvalidOptionError,
  InvalidOptionTypeError,
  StoreError,
  StoreTimeoutError,
} from './base/errors';
