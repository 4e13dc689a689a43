// The user API of @floodgate/core, with layered and byUser typed for Express' req.
export * from '@floodgate/core';
export { byUser, layered } from './typed';
export { rateLimit } from './rate-limit';
export type { RateLimitHandler, RateLimitOptions } from './rate-limit';
