export { rateLimit } from './rate-limit';
export type { RateLimitHandler, RateLimitOptions } from './rate-limit';
export {
  fixedWindow,
  slidingLog,
  slidingWindow,
  tokenBucket,
  leakyBucket,
  gcra,
  concurrency,
  byIp,
  byHeader,
  byApiKey,
  byUser,
  layered,
  MemoryStore,
  FloodgateError,
} from '@floodgate/core';
export type { Decision, RateLimitInfo, FloodgateWarning, Store, Duration } from '@floodgate/core';
