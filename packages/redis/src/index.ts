export { RedisStore } from './redis-store';
export type { RedisStoreOptions, RedisStoreClock, RedisStoreScripts } from './options';
export type { RedisClientAdapter, RedisStoreClient, ScriptArgument } from './clients';
