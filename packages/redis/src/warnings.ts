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

/**
 * The server's `maxmemory-policy` (the first one that is not `noeviction` on a Cluster), or
 * undefined when it cannot be read (CONFIG disabled or renamed, as on some managed services).
 */
export async function readEvictionPolicy(client: CommandClient, cluster: boolean): Promise<string | undefined> {
  const nodes = cluster && client.nodes ? client.nodes('master') : [client];
  try {
    const replies = await Promise.all(nodes.map((node) => node.call('CONFIG', 'GET', 'maxmemory-policy')));
    const policies = replies.map((reply) => (Array.isArray(reply) ? String(reply[1]) : undefined));
    return policies.find((policy) => policy !== 'noeviction') ?? policies[0];
  } catch {
    return undefined;
  }
}

/**
 * Any eviction policy can erase a counter and hand a client a fresh quota; `volatile-*` ones evict
 * the limiter's keys first, since they all have TTLs.
 */
export function warnAboutEviction(policy: string): void {
  console.warn(
    `[FLOODGATE_EVICTION_POLICY] @floodgate/redis: Redis runs with maxmemory-policy ${policy}; under memory ` +
      'pressure it can evict limiter keys and reset clients to a full quota. Use noeviction for the Redis that ' +
      'holds limiter state (a refused write is a store failure, answered by the local fallback; see the README).',
  );
}
