import { Cluster, type ClusterOptions } from 'ioredis';
import type { RedisCluster } from './redis-cluster.ts';

/**
 * An ioredis Cluster client with the settings reliability.md recommends (no offline queue, no
 * per-request retries, a command timeout, few redirections), resolved once it is ready: with the
 * offline queue off, a command sent before `ready` would fail.
 */
export async function connectCluster(
  cluster: RedisCluster,
  options: { commandTimeout?: number; extra?: ClusterOptions } = {},
): Promise<Cluster> {
  const client = new Cluster(cluster.startupNodes, {
    enableOfflineQueue: false,
    maxRedirections: 4,
    redisOptions: { maxRetriesPerRequest: 0, commandTimeout: options.commandTimeout ?? 1000 },
    ...options.extra,
  });
  const errors: unknown[] = [];
  client.on('error', (error) => errors.push(error));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cluster client not ready after 5 s: ${String(errors[0])}`)), 5000);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return client;
}

let counter = 0;

/** A key prefix (a limiter `prefix`: letters, digits, `.`, `_`, `-`) that no other test uses. */
export function freshPrefix(name: string): string {
  counter += 1;
  return `t-${name}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}
