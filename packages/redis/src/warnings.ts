import type { Warn } from '@floodgate/core/store';
import type { RedisClientAdapter } from './clients';
import { RedisStoreError } from './store-failure';

/** Stable codes of RedisStore's warnings; the README documents each under the same name. */
export const RedisWarning = {
  offlineQueue: 'WARN_FLOODGATE_OFFLINE_QUEUE',
  evictionPolicy: 'WARN_FLOODGATE_EVICTION_POLICY',
  serverTime: 'WARN_FLOODGATE_SERVER_TIME',
  keyReset: 'WARN_FLOODGATE_KEY_RESET',
  acl: 'WARN_FLOODGATE_ACL',
} as const;

/** The settings that turn each client family's offline queue off, for the warning. */
const NO_QUEUE: Record<string, string> = {
  'ioredis/iovalkey':
    'Create it with { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout } (on a Cluster: ' +
    'enableOfflineQueue: false, and the rest under redisOptions)',
  'node-redis':
    'Create it with { disableOfflineQueue: true, commandOptions: { timeout } } (on a Cluster: under defaults)',
  'node-redis sentinel':
    'createSentinel() holds calls while it looks for a master whatever nodeClientOptions say; for none to run late, ' +
    'use ioredis or iovalkey with `sentinels` and enableOfflineQueue: false',
};

/**
 * Warns when the client keeps an offline queue: while Redis is away every call would park there
 * (about 1 kB each) and run later, charging requests that were already answered.
 */
export function warnIfOfflineQueue(client: RedisClientAdapter, warn: Warn): void {
  if (client.offlineQueue === false) return;
  const how = NO_QUEUE[client.name] ?? 'Turn the offline queue off';
  warn(
    RedisWarning.offlineQueue,
    `the ${client.name} client given to RedisStore has its offline queue enabled. ${how}, so that calls fail ` +
      'fast while Redis is down instead of being queued and replayed later (see the README).',
  );
}

/**
 * The server's `maxmemory-policy` (the first one that is not `noeviction` on a Cluster), or
 * undefined when it cannot be read (CONFIG disabled or renamed, as on some managed services, or an
 * adapter without configGet).
 */
export async function readEvictionPolicy(client: RedisClientAdapter): Promise<string | undefined> {
  if (client.configGet === undefined) return undefined;
  try {
    const policies = await client.configGet('maxmemory-policy');
    return policies.find((policy) => policy !== undefined && policy !== 'noeviction') ?? policies[0];
  } catch {
    return undefined;
  }
}

/**
 * Any eviction policy can erase a counter and hand a client a fresh quota; `volatile-*` ones evict
 * the limiter's keys first, since they all have TTLs.
 */
export function warnAboutEviction(policy: string, warn: Warn): void {
  warn(
    RedisWarning.evictionPolicy,
    `Redis runs with maxmemory-policy ${policy}; under memory pressure it can evict limiter keys and reset ` +
      'clients to a full quota. Use noeviction for the Redis that holds limiter state (a refused write is a ' +
      'store failure, answered by the local fallback; see the README).',
  );
}

/** Says that RedisStore now sends this process' clock. */
export function warnServerTimeRefused(warn: Warn): void {
  warn(
    RedisWarning.serverTime,
    "this Redis does not let scripts call TIME (an ACL user needs +time; some managed services refuse it to everyone), so RedisStore sends each app instance's own clock instead (as with clock: 'client'). Grant +time, or keep the instances' clocks in sync (NTP) and pass clock: 'client' to say so and skip this check.",
  );
}

/** A key held data no algorithm writes (another type, or a field that is not a whole number). */
export function warnKeyReset(warn: Warn): void {
  warn(
    RedisWarning.keyReset,
    'a limiter key held data no Floodgate algorithm writes (another type, or a corrupted field) and was reset; ' +
      'only that key was affected. Another program may be writing under the same key prefix.',
  );
}

/** Redis refused a command or key to the ACL user: say what to grant, once (each call still fails). */
export function warnIfRefused(error: unknown, warn: Warn): void {
  if (!(error instanceof RedisStoreError) || error.grant === undefined) return;
  warn(
    RedisWarning.acl,
    `${error.message.replace(/^Redis \w+ failed: /, '')} Until then every call that needs it fails, and failMode decides those requests.`,
  );
}
