export { rateLimiter } from './rate-limiter';
export type { RateLimiterHandler, RateLimiterOptions } from './rate-limiter';
export type { Decision, RateLimitInfo, FloodgateWarning, TrustProxy } from '@floodgate/core';
