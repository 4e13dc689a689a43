import { configValue, isFunctionMissingMessage, isNoScriptMessage, stringArgs } from './adapter';
import type { RedisClientAdapter } from './adapter';
import { emitsReady, readyCounter } from './ready-count';

/** The part of a node-redis (`redis` 5) client, from `createClient()`, RedisStore uses. */
export interface NodeRedisClientLike {
  sendCommand(args: readonly string[], options?: never): Promise<unknown>;
  readonly isReady: boolean;
  readonly options?: { disableOfflineQueue?: boolean } | undefined;
  /** `ready` after every (re)connection: the limiter probes at once after an outage. */
  on?(event: 'ready', listener: () => void): unknown;
}

/** A node of a node-redis Cluster's topology. */
export interface NodeRedisNodeLike {
  readonly address: string;
}

/** The part of a node-redis Cluster, from `createCluster()`, RedisStore uses. */
export interface NodeRedisClusterLike {
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  readonly masters: readonly NodeRedisNodeLike[];
  readonly slots: readonly ({ readonly master: NodeRedisNodeLike } | undefined)[];
  nodeClient(node: never): Promise<NodeRedisClientLike> | NodeRedisClientLike;
  readonly _options?: { defaults?: { disableOfflineQueue?: boolean } };
}

/** The part of a node-redis Sentinel client, from `createSentinel()`, RedisStore uses. */
export interface NodeRedisSentinelLike {
  sendCommand(isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  getMasterNode(): unknown;
}

export function isNodeRedisClient(client: object): client is NodeRedisClientLike {
  const c = client as Partial<NodeRedisClientLike> & { nodeClient?: unknown; getMasterNode?: unknown };
  return (
    typeof c.sendCommand === 'function' &&
    'isReady' in client &&
    c.nodeClient === undefined &&
    c.getMasterNode === undefined
  );
}

export function isNodeRedisSentinel(client: object): client is NodeRedisSentinelLike {
  const c = client as Partial<NodeRedisSentinelLike>;
  return typeof c.sendCommand === 'function' && typeof c.getMasterNode === 'function';
}

export function isNodeRedisCluster(client: object): client is NodeRedisClusterLike {
  const c = client as Partial<NodeRedisClusterLike>;
  return typeof c.sendCommand === 'function' && typeof c.nodeClient === 'function' && 'masters' in client;
}

/**
 * Adapter for node-redis 5 (`createClient()`, `createSentinel()` or `createCluster()` from `redis` or
 * `@redis/client`).
 * Commands go through `sendCommand`, with every argument as a string. On a Cluster, node-redis
 * routes each call by its first key and follows MOVED and ASK itself; FUNCTION LOAD goes to each
 * master's own client.
 */
export function nodeRedisAdapter(
  client: NodeRedisClientLike | NodeRedisClusterLike | NodeRedisSentinelLike,
): RedisClientAdapter {
  if (isNodeRedisCluster(client)) return clusterAdapter(client);
  // createSentinel(): every command to the master it currently knows. While it has no ready master
  // it holds commands until it finds one, whatever `disableOfflineQueue` says: it counts as having
  // a queue, and RedisStore warns.
  if (isNodeRedisSentinel(client))
    return oneNodeAdapter(
      'node-redis sentinel',
      client,
      (args) => client.sendCommand(false, args),
      () => true,
    );
  return oneNodeAdapter(
    'node-redis',
    client,
    (args) => client.sendCommand(args),
    () => client.options?.disableOfflineQueue !== true,
  );
}

/** The adapter for a client that sends every command to one node (`send`); its `ready` events are counted. */
function oneNodeAdapter(
  name: string,
  client: object,
  send: (args: string[]) => Promise<unknown>,
  offlineQueue: () => boolean,
): RedisClientAdapter {
  return {
    name,
    cluster: false,
    get offlineQueue() {
      return offlineQueue();
    },
    evalsha: (sha1, keys, args) => send(['EVALSHA', sha1, ...stringArgs(keys, args)]),
    eval: (source, keys, args) => send(['EVAL', source, ...stringArgs(keys, args)]),
    fcall: (fn, keys, args) => send(['FCALL', fn, ...stringArgs(keys, args)]),
    async functionLoad(source) {
      await send(['FUNCTION', 'LOAD', 'REPLACE', source]);
    },
    isNoScript: isNoScriptMessage,
    isFunctionMissing: isFunctionMissingMessage,
    ...(emitsReady(client) ? { readyCount: readyCounter(client) } : {}),
    async configGet(parameter) {
      return [configValue(await send(['CONFIG', 'GET', parameter]), parameter)];
    },
  };
}

function clusterAdapter(cluster: NodeRedisClusterLike): RedisClientAdapter {
  const send = (keys: readonly string[], args: string[]) => cluster.sendCommand(keys[0], false, args);
  const onEveryMaster = (args: string[]) =>
    Promise.all(cluster.masters.map(async (master) => (await cluster.nodeClient(master as never)).sendCommand(args)));
  return {
    name: 'node-redis',
    cluster: true,
    get offlineQueue() {
      return cluster._options?.defaults?.disableOfflineQueue !== true;
    },
    evalsha: (sha1, keys, args) => send(keys, ['EVALSHA', sha1, ...stringArgs(keys, args)]),
    eval: (source, keys, args) => send(keys, ['EVAL', source, ...stringArgs(keys, args)]),
    fcall: (fn, keys, args) => send(keys, ['FCALL', fn, ...stringArgs(keys, args)]),
    async functionLoad(source) {
      await onEveryMaster(['FUNCTION', 'LOAD', 'REPLACE', source]);
    },
    isNoScript: isNoScriptMessage,
    isFunctionMissing: isFunctionMissingMessage,
    masterOf: (slot) => cluster.slots[slot]?.master.address,
    async configGet(parameter) {
      const replies = await onEveryMaster(['CONFIG', 'GET', parameter]);
      return replies.map((reply) => configValue(reply, parameter));
    },
  };
}
