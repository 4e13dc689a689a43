// The user API. Store authors: @floodgate/core/store. Adapter authors: @floodgate/core/http.
export { createLimiter } from './limiter';
export type {
  ConsumeOptions,
  Limiter,
  LimiterOptions,
  LimitRule,
  Priority,
  PriorityFunction,
  RuleSelector,
} from './limiter-types';
export { MemoryStore } from './memory-store';
export type { MemoryStoreOptions } from './memory-store';
export type { Store } from './store';

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
export { layered } from './layered';
export type { ApiKeyLayer, IpLayer, LayeredOptions, UserLayer } from './layered';

export type { Decision, LayerResult } from './decision';
export type { RateLimitInfo } from './http/types';
export { buildHeaders } from './headers';
export type { HeaderOptions, StandardHeaders } from './headers';
export { parseDuration } from './duration';
export type { Duration } from './duration';

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
export { WarningCode } from './warnings';
export type { FloodgateWarning } from './warnings';
export {
  FloodgateError,
  InvalidCostError,
  InvalidOptionError,
  InvalidOptionTypeError,
  StoreError,
  StoreTimeoutError,
} from './errors';
