import { InvalidOptionTypeError } from '@floodgate/core';
import {
  consoleWarning,
  functionOption,
  onceWarner,
  oneOfOption,
  rejectUnknownKeys,
  requireObject,
  show,
  timerOption,
} from '@floodgate/core/store';
import { adapterFor } from './clients';
import type { Duration, FloodgateWarning } from '@floodgate/core';
import type { Warn } from '@floodgate/core/store';
import type { RedisClientAdapter, RedisStoreClient } from './clients';
import type { IoredisLike } from './clients/ioredis';

/** Where `now` comes from: Redis `TIME` (default), this process' `Date.now()`, or your own function. */
export type RedisStoreClock = 'server' | 'client' | (() => number);

/** How the composer runs: EVALSHA with EVAL on NOSCRIPT, or a Redis Functions library (Redis >= 7). */
export type RedisStoreScripts = 'eval' | 'function';

export interface RedisStoreOptions {
  /**
   * An ioredis or iovalkey `Redis` (standalone or Sentinel) or `Cluster`, a node-redis
   * `createClient()` or `createCluster()`, a Valkey GLIDE `GlideClient` or `GlideClusterClient`
   * (configured as the README recommends), or a RedisClientAdapter of your own.
   */
  client: RedisStoreClient;
  /**
   * Put before every key with a `:` (`'shop'` makes `shop:fg:ip:…`), to share a Redis between
   * apps. No braces. Default `''` (no prefix, no separator).
   */
  prefix?: string;
  /** Default `'server'`. Use `'client'` or a function only when every app instance has a good clock. */
  clock?: RedisStoreClock;
  /** Deadline of each script call in ms; the limiter's own (shorter) `timeout` is the usual bound. Default 1000. */
  timeout?: Duration;
  /** Default `'eval'`. `'function'` loads a Redis Functions library (replicated to replicas) once. */
  scripts?: RedisStoreScripts;
  /** Where run-time warnings go (each code once per store). Default `console.warn`. */
  onWarning?: (warning: FloodgateWarning) => void;
}

/** The subset of an ioredis client the store used before adapters; kept as a name for IoredisLike. */
export type CommandClient = IoredisLike;

export interface RedisStoreConfig {
  /** The client, behind the adapter RedisStore found for it (or the one given). */
  client: RedisClientAdapter;
  cluster: boolean;
  prefix: string;
  clock: RedisStoreClock;
  timeout: number;
  scripts: RedisStoreScripts;
  warn: Warn;
}

const KNOWN = ['client', 'prefix', 'clock', 'timeout', 'scripts', 'onWarning'];

export function parseRedisStoreOptions(options: RedisStoreOptions): RedisStoreConfig {
  const raw = requireObject('RedisStore', options);
  rejectUnknownKeys('RedisStore', raw, KNOWN);
  const client = adapterFor(raw.client);
  return {
    client,
    cluster: client.cluster,
    prefix: parsePrefix(raw.prefix),
    clock: parseClock(raw.clock),
    timeout: raw.timeout === undefined ? 1000 : timerOption('RedisStore.timeout', raw.timeout),
    scripts: raw.scripts === undefined ? 'eval' : oneOfOption('RedisStore.scripts', raw.scripts, ['eval', 'function']),
    warn: onceWarner(
      raw.onWarning === undefined
        ? consoleWarning
        : functionOption<(warning: FloodgateWarning) => void>('RedisStore.onWarning', raw.onWarning),
    ),
  };
}

function parsePrefix(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value !== 'string' || value.length > 128 || /[{}]/.test(value)) {
    throw new InvalidOptionTypeError(
      `RedisStore.prefix must be a string of at most 128 characters without { or }, got ${show(value)}`,
    );
  }
  return value;
}

function parseClock(value: unknown): RedisStoreClock {
  if (value === undefined) return 'server';
  if (value === 'server' || value === 'client' || typeof value === 'function') return value as RedisStoreClock;
  throw new InvalidOptionTypeError(`RedisStore.clock must be 'server', 'client' or a function, got ${show(value)}`);
}
