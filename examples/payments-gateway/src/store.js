import { MemoryStore } from '@floodgate/fastify';

/**
 * A MemoryStore for one process, or a RedisStore shared by every gateway when `redisUrl` is set,
 * with the client settings packages/redis/README.md recommends: fail fast, never send a command
 * twice.
 *
 * @param {string | undefined} [redisUrl]
 */
export async function createStore(redisUrl = process.env.REDIS_URL) {
  if (!redisUrl) return { store: new MemoryStore(), client: undefined, close: async () => {} };
  const [{ Redis }, { RedisStore }] = await Promise.all([import('ioredis'), import('@floodgate/redis')]);
  const client = new Redis(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Above the limiter's 50 ms deadline: the limiter answers first, this only frees the client.
    commandTimeout: 100,
    connectTimeout: 1000,
    reconnectOnError: null,
    // ioredis backs off up to 2 s between reconnects; the breaker probes as soon as the client is
    // ready again, so a short back-off brings Redis back sooner.
    retryStrategy: (attempt) => Math.min(attempt * 50, 500),
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
  await client.connect().catch((error) => console.warn(`redis: not reachable yet (${error.message})`));
  const store = new RedisStore({ client });
  // quit() waits for Redis; a Redis that is gone gets a plain disconnect.
  return {
    store,
    client,
    close: () =>
      client.quit().then(
        () => {},
        () => client.disconnect(),
      ),
  };
}
