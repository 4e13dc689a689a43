import type { CommandClient } from './options';

let warned = false;

/**
 * Warns once per process when the client keeps an offline queue: while Redis is away every call
 * would park there (about 1 kB each) and run later, charging requests that were already answered.
 */
export function warnIfOfflineQueue(client: CommandClient): void {
  if (warned || client.options?.enableOfflineQueue === false) return;
  warned = true;
  console.warn(
    '[FLOODGATE_OFFLINE_QUEUE] @floodgate/redis: the ioredis client given to RedisStore has its offline queue ' +
      'enabled. Create it with { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout } so that ' +
      'calls fail fast while Redis is down instead of being queued and replayed later (see the README).',
  );
}
