export { politeFetch } from './polite-fetch';
export type { PoliteFetch } from './polite-fetch';
export { IDEMPOTENT_METHODS } from './options';
export type { FetchLike, GiveUpEvent, PoliteFetchOptions, WaitEvent } from './options';
export { readRateLimit } from './headers';
export { parseRetryAfter } from './http-values';
export type { IgnoredField, QuotaUnit, RateLimitPolicy, RateLimitSource, RateLimitState } from './rate-limit-state';
export type { Duration } from './duration';
export { InvalidOptionError, InvalidOptionTypeError } from './errors';
