export { parseRetryAfter, readRateLimit } from './headers';
export type { RateLimitPolicy, RateLimitSource, RateLimitState } from './headers';
