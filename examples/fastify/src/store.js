import { MemoryStore } from '@floodgate/core';

/**
 * A MemoryStore for one process, or a RedisStore shared by every instance when REDIS_URL is set.
 * The client settings are the ones packages/redis/README.md recommends: fail fast, never resend.
 */
export async function createStore(redisUrl = process.env.REDIS_URL) {
  if (!redisUrl) return { store: new MemoryStore(), close: async () => {} };
  const [{ Redis }, { RedisStore }] = await Promise.all([import('ioredis'), import('@floodgate/redis')]);
  const client = new Redis(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 100,
    connectTimeout: 1000,
    reconnectOnError: null,
    lazyConnect: true,
  });
  // ioredis reports every failed reconnect; say each new problem once.
  let lastError;
  client.on('error', (error) => {
    if (error.message !== lastError) console.warn(`redis: ${error.message}`);
    lastError = error.message;
  });
  client.on('ready', () => {
    lastError = undefined;
  });
  // Until Redis answers, the limiter decides from its local fallback (failMode 'local', the default).
  await client.connect().catch((error) => console.warn(`redis: not reachable yet (${error.message})`));
  return { store: new RedisStore({ client }), close: () => client.quit().then(() => {}) };
}
