// The user API of @floodgate/core, with layered and byUser typed for Koa's ctx.
export * from '@floodgate/core';
export { byUser, layered } from './typed';
export { rateLimit, rateLimitStatus } from './rate-limit';
export type { RateLimitHandler, RateLimitMiddleware, RateLimitOptions, RateLimitState } from './rate-limit';
