export { RedisStore } from './redis-store';
export { adapterFor as redisClientAdapter } from './clients';
export type { RedisStoreOptions, RedisStoreClock, RedisStoreScripts } from './options';
export type { RedisClientAdapter, RedisStoreClient, ScriptArgument } from './clients';
