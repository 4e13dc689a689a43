export { politeFetch } from './polite-fetch';
export type { PoliteFetch } from './polite-fetch';
export { IDEMPOTENT_METHODS } from './options';
export type { FetchLike, GiveUpEvent, PoliteFetchOptions, WaitEvent } from './options';
export { parseRetryAfter, readRateLimit } from './headers';
export type { RateLimitPolicy, RateLimitSource, RateLimitState } from './headers';
export type { Duration } from './duration';
export { InvalidOptionError, InvalidOptionTypeError } from './errors';
