export { DurableObjectStore } from './durable-object-store';
export type { DurableObjectStoreOptions } from './options';
export { FloodgateObject } from './floodgate-object';
export type { LimiterNamespace, LimiterObjectState, LimiterStub, SqlStorageLike } from './types';
