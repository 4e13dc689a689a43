import { MemoryStore } from '@floodgate/nestjs';

/**
 * A MemoryStore for one process, or a RedisStore shared by every instance when REDIS_URL is set.
 * The client setup is the root README's ("Redis: one limit for every instance"), copied exactly:
 * test/docs/client-setup.test.ts keeps the two the same.
 */
export async function createStore(redisUrl = process.env.REDIS_URL) {
  if (!redisUrl) return { store: new MemoryStore(), close: async () => {} };
  const [{ Redis }, { RedisStore }] = await Promise.all([import('ioredis'), import('@floodgate/redis')]);
  const client = new Redis(redisUrl, {
    enableOfflineQueue: false, // while disconnected a call fails at once, and never runs later
    maxRetriesPerRequest: 0, // a call cut off by a disconnect is not sent again (it could charge twice)
    commandTimeout: 100, // a frozen server fails the call too
    connectTimeout: 1000,
    reconnectOnError: null, // never resend on READONLY (a demoted primary)
    retryStrategy: (attempt) => Math.min(attempt * 50, 1000), // reconnect at most 1 s after Redis is back
    lazyConnect: true, // connect when told to (below), so that start-up can wait for Redis
  });
  let lastError = '';
  client.on('error', (error) => {
    // ioredis emits one for every failed reconnect attempt: say each new problem once.
    if (error.message !== lastError) console.warn(`redis: ${error.message}`);
    lastError = error.message;
  });
  client.on('ready', () => {
    lastError = '';
  });
  await client.connect().catch(() => {}); // Redis down: start anyway, deciding locally until it is up
  return { store: new RedisStore({ client }), close: () => client.quit().then(() => {}) };
}
