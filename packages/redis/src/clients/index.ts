import { InvalidOptionTypeError } from '@floodgate/core';
import { show } from '@floodgate/core/store';
import { glideAdapter, isGlideClient } from './valkey-glide';
import { ioredisAdapter, isIoredisLike } from './ioredis';
import { isNodeRedisClient, isNodeRedisCluster, isNodeRedisSentinel, nodeRedisAdapter } from './node-redis';
import type { RedisClientAdapter } from './adapter';
import type { GlideClientLike, GlideClusterClientLike } from './valkey-glide';
import type { IoredisLike } from './ioredis';
import type { NodeRedisClientLike, NodeRedisClusterLike, NodeRedisSentinelLike } from './node-redis';

export type { RedisClientAdapter, ScriptArgument } from './adapter';

/** Every client RedisStore takes: detected from its shape, or an adapter you wrote. */
export type RedisStoreClient =
  | IoredisLike
  | NodeRedisClientLike
  | NodeRedisClusterLike
  | NodeRedisSentinelLike
  | GlideClientLike
  | GlideClusterClientLike
  | RedisClientAdapter;

const ADAPTER_METHODS = ['evalsha', 'eval', 'fcall', 'functionLoad', 'isNoScript', 'isFunctionMissing'] as const;

/** An object that implements RedisClientAdapter (checked by its methods, since it has no class). */
export function isAdapter(client: object): client is RedisClientAdapter {
  const c = client as Record<string, unknown>;
  return ADAPTER_METHODS.every((method) => typeof c[method] === 'function') && typeof c.cluster === 'boolean';
}

/**
 * The adapter for `client`, by its shape, in this order:
 * 1. an object with every RedisClientAdapter method (`isNoScript` included) is used as is;
 * 2. `call()` -> ioredis or iovalkey (`Redis`, or `Cluster` when `isCluster` is true);
 * 3. `customCommand()` and `invokeScript()` -> Valkey GLIDE (`GlideClusterClient` when it also
 *    has `fcallWithRoute`);
 * 4. `sendCommand()` with `nodeClient()` and `masters` -> node-redis `createCluster()`;
 *    `sendCommand()` with `isReady` -> node-redis `createClient()`.
 * Anything else is an InvalidOptionTypeError naming RedisStore.client.
 */
export function adapterFor(value: unknown): RedisClientAdapter {
  if (typeof value === 'object' && value !== null) {
    if (isAdapter(value)) return value;
    if (isIoredisLike(value)) {
      if (value.isCluster === true && typeof value.nodes !== 'function') {
        throw new InvalidOptionTypeError('RedisStore.client looks like a Cluster but has no nodes() method');
      }
      return ioredisAdapter(value);
    }
    if (isGlideClient(value)) return glideAdapter(value);
    if (isNodeRedisCluster(value) || isNodeRedisSentinel(value) || isNodeRedisClient(value)) {
      return nodeRedisAdapter(value);
    }
  }
  throw new InvalidOptionTypeError(
    'RedisStore.client must be an ioredis or iovalkey Redis or Cluster, a node-redis client or cluster, ' +
      `a Valkey GLIDE client, or a RedisClientAdapter; got ${show(value)}`,
  );
}
