// The user API of @floodgate/core, with layered and byUser typed for Hono's context.
export * from '@floodgate/core';
export { byUser, layered } from './typed';
export { rateLimiter, rateLimitStatus } from './rate-limiter';
export type { RateLimiterHandler, RateLimiterMiddleware, RateLimiterOptions } from './rate-limiter';
export type { ConnInfoLike, TrustProxy } from '@floodgate/core/http';
