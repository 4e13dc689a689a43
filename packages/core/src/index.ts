export {
  FloodgateError,
  InvalidOptionError,
  InvalidOptionTypeError,
  InvalidCostError,
  StoreError,
  StoreTimeoutError,
  BreakerOpenError,
  KeyFunctionError,
} from './errors';
export { MAX_TIMER_MS, parseDuration, timerOption, windowOption } from './duration';
// Validation helpers shared with @floodgate/redis and other stores: same checks, same messages.
export { show } from './errors';
export { functionOption, oneOfOption, rejectUnknownKeys, requireObject } from './validate';
export type { Duration } from './duration';
export type { Algorithm, AlgorithmKind, Outcome } from './algorithms/types';
export { fixedWindow } from './algorithms/fixed-window';
export type { FixedWindowOptions, FixedWindowState } from './algorithms/fixed-window';
export { slidingLog } from './algorithms/sliding-log';
export type { SlidingLogOptions, SlidingLogState } from './algorithms/sliding-log';
export { slidingWindow } from './algorithms/sliding-window';
export type { SlidingWindowOptions, SlidingWindowState } from './algorithms/sliding-window';
export { tokenBucket } from './algorithms/token-bucket';
export type { TokenBucketOptions } from './algorithms/token-bucket';
export { leakyBucket } from './algorithms/leaky-bucket';
export type { LeakyBucketOptions } from './algorithms/leaky-bucket';
export { gcra } from './algorithms/gcra';
export type { GcraOptions } from './algorithms/gcra';
export { concurrency } from './algorithms/concurrency';
export type { ConcurrencyOptions, ConcurrencyState, Lease } from './algorithms/concurrency';
export type { BucketState } from './algorithms/draining-bucket';
export { MemoryStore } from './memory-store';
export type { MemoryStoreOptions } from './memory-store';
export type { Store, LayerCall, LayerOutcome } from './store';
export { createLimiter } from './limiter';
export type { Limiter, LimiterOptions, LimitRule, ConsumeOptions } from './limiter';
export type { Decision, LayerResult } from './decision';
export type { KeyContext, KeyFunction } from './keys/context';
export { encodeIdentity, hashSecret } from './keys/identity';
export { withDeadline } from './resilience/deadline';
export type {
  BreakerOptions,
  DecisionEvent,
  DenyCacheOption,
  FailMode,
  LimiterEvents,
  ResilienceOptions,
  StoreErrorEvent,
} from './resilience/options';
export type { BreakerChange, BreakerState } from './resilience/breaker';
export type { PartitionedStore } from './resilience/guarded-store';
export { byIp } from './keys/by-ip';
export type { ByIpOptions } from './keys/by-ip';
export { byHeader } from './keys/by-header';
export type { ByHeaderOptions } from './keys/by-header';
export { byApiKey } from './keys/by-api-key';
export type { ByApiKeyOptions } from './keys/by-api-key';
export { byUser } from './keys/by-user';
export type { UserId } from './keys/by-user';
export { layered } from './layered';
export type { LayeredOptions, IpLayer, UserLayer, ApiKeyLayer } from './layered';
export { buildHeaders, parseHeaderModes, writeHeaders } from './headers';
export type { HeaderModes, HeaderOptions, HeaderSetter, StandardHeaders } from './headers';
export { buildProblem, negotiateProblem } from './problem';
export type { ProblemDetails, ProblemResponse } from './problem';
export { parseHttpOptions } from './http/options';
export { closeSignal, nodeHeader } from './http/driver';
export type { HttpDriver, NodeHeaders, NodeResponse } from './http/driver';
export type { HttpConfig } from './http/options';
export { ABORTED, Gate } from './http/gate';
export type { GateResult } from './http/gate';
export { Denial } from './http/render';
export { TurnQueue } from './http/turn-queue';
export { LimiterDecision } from './limiter-decision';
export { isThenable } from './thenable';
export type { HttpLimitOptions, HttpOwnOptions, RateLimitInfo } from './http/types';
export { consoleWarning, onceWarner, WarningCode } from './warnings';
export type { FloodgateWarning, Warn } from './warnings';
export type { ProxyTrust } from './http/warnings';
export { clientIpResolver, describeTrust } from './http/trust';
export type { ClientIpResolver, TrustProxy } from './http/trust';
export { ipMatcher } from './http/ip-match';
export type { IpMatcher } from './http/ip-match';
export { routeOverride } from './http/route-options';
export type { RouteOverride } from './http/route-options';
export type { SharedCounters } from './http/options';
export { parsePeerOptions } from './http/peer';
export type { ConnInfoLike, PeerConfig } from './http/peer';
