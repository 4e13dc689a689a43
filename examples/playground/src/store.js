/**
 * Where the limiters keep their state: a MemoryStore, or a RedisStore when REDIS_URL is set,
 * with the client settings recommended in packages/redis/README.md (fail fast, never resend).
 */
export async function storeFromEnv(env = process.env) {
  const { MemoryStore } = await import('@floodgate/express');
  if (!env.REDIS_URL) return { store: new MemoryStore(), storeName: 'memory', close: async () => {} };

  const [{ Redis }, { RedisStore }] = await Promise.all([import('ioredis'), import('@floodgate/redis')]);
  const client = new Redis(env.REDIS_URL, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 100,
    connectTimeout: 1000,
    reconnectOnError: null,
    lazyConnect: true,
  });
  // Without an offline queue, commands sent before the connection is up would fail; the limiter
  // would answer them from its local fallback, but connecting first keeps the demo exact.
  // ioredis reports every failed reconnect; say each new problem once.
  let lastError;
  client.on('error', (error) => {
    if (error.message !== lastError) console.warn(`redis: ${error.message}`);
    lastError = error.message;
  });
  client.on('ready', () => {
    lastError = undefined;
  });
  await client
    .connect()
    .catch((error) => console.warn(`redis: not reachable yet (${error.message}); deciding locally`));
  // One process, so its own clock is the limiter's clock: the page can then aim at window boundaries.
  const store = new RedisStore({ client, clock: 'client' });
  return { store, storeName: 'redis', close: () => client.quit().then(() => {}) };
}
