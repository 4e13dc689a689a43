import { configValue, isFunctionMissingMessage, isNoScriptMessage } from './adapter';
import type { RedisClientAdapter } from './adapter';
import { emitsReady, readyCounter } from './ready-count';

/**
 * The part of an ioredis (5, 6) or iovalkey client RedisStore uses; `Redis` (standalone or
 * Sentinel) and `Cluster` both have it.
 */
export interface IoredisLike {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  readonly options?: { enableOfflineQueue?: boolean | undefined };
  readonly isCluster?: boolean | undefined;
  nodes?(role: 'master'): IoredisLike[];
  /** Cluster only: the slot table, slot -> [master "host:port", ...replicas]. */
  readonly slots?: readonly (readonly string[] | undefined)[];
  /** `ready` after every (re)connection: the limiter probes at once after an outage. */
  on?(event: 'ready', listener: () => void): unknown;
}

/** An ioredis-style client: it has `call`, and a Cluster says so with `isCluster`. */
export function isIoredisLike(client: object): client is IoredisLike {
  return typeof (client as Partial<IoredisLike>).call === 'function';
}

/**
 * Adapter for ioredis and iovalkey (an ioredis fork with the same API). Commands go through `call`,
 * so no `defineCommand` and no MULTI: NOSCRIPT is handled by RedisStore itself.
 */
export function ioredisAdapter(client: IoredisLike, name = 'ioredis/iovalkey'): RedisClientAdapter {
  const cluster = client.isCluster === true;
  const masters = (): IoredisLike[] => (cluster && client.nodes ? client.nodes('master') : [client]);
  return {
    name,
    cluster,
    get offlineQueue() {
      // Both default to true; only an explicit false turns the queue off.
      return client.options?.enableOfflineQueue !== false;
    },
    evalsha: (sha1, keys, args) => client.call('EVALSHA', sha1, keys.length, ...keys, ...args),
    eval: (source, keys, args) => client.call('EVAL', source, keys.length, ...keys, ...args),
    fcall: (fn, keys, args) => client.call('FCALL', fn, keys.length, ...keys, ...args),
    async functionLoad(source) {
      await Promise.all(masters().map((node) => node.call('FUNCTION', 'LOAD', 'REPLACE', source)));
    },
    // Anywhere in the message: ioredis' Cluster client wraps the reply as "Too many Cluster
    // redirections. Last error: ReplyError: NOSCRIPT ..." when a failover is under way.
    isNoScript: isNoScriptMessage,
    isFunctionMissing: isFunctionMissingMessage,
    ...(cluster ? { masterOf: (slot: number) => client.slots?.[slot]?.[0] } : {}),
    ...(emitsReady(client) ? { readyCount: readyCounter(client) } : {}),
    async configGet(parameter) {
      const replies = await Promise.all(masters().map((node) => node.call('CONFIG', 'GET', parameter)));
      return replies.map((reply) => configValue(reply, parameter));
    },
  };
}
