// The user API of @floodgate/core, with layered and byUser typed for Hono's context.
export * from '@floodgate/core';
export { byUser, layered } from './typed';
export { rateLimiter } from './rate-limiter';
export { rateLimitStatus } from './status-route';
export type { RateLimiterHandler, RateLimiterMiddleware, RateLimiterOptions } from './rate-limiter';
export type { ConnInfoLike, TrustProxy } from '@floodgate/core/http';
