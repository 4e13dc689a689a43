export { limitsFromFile } from './file-source';
export type { FileLimits, FileLimitsOptions } from './file-source';
export { limitsFromRedis, publishLimits } from './redis-source';
export type { LimitsClient, RedisLimits, RedisLimitsOptions } from './redis-source';
export type { SourceOptions } from './document-text';
export { limitsSchema } from './schema';
