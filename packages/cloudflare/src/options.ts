import { InvalidOptionError, InvalidOptionTypeError } from '@floodgate/core';
import {
  consoleWarning,
  functionOption,
  onceWarner,
  rejectUnknownKeys,
  requireObject,
  show,
} from '@floodgate/core/store';
import type { FloodgateWarning } from '@floodgate/core';
import type { Warn } from '@floodgate/core/store';
import type { LimiterNamespace } from './types';

export interface DurableObjectStoreOptions {
  /**
   * The Durable Object namespace bound to FloodgateObject: `env.FLOODGATE` for a binding named
   * `FLOODGATE` (the class must be a SQLite one, `new_sqlite_classes` in its migration).
   */
  namespace: LimiterNamespace;
  /**
   * How many objects share the identities. Default: none, one object per identity (an IP, a user,
   * an API key), which scales with the clients. `shards: 1` puts every key in one object (every
   * request's layers decided in one call, at one object's throughput).
   */
  shards?: number;
  /**
   * Time for decisions, in epoch ms, read once per store call and sent with it. Default: none, each
   * object decides by its own clock (on Cloudflare the same synchronised clock as the Worker's).
   * Give one to decide on an injected clock (tests); every Worker sharing the objects must then
   * read the same one, as with `createLimiter({ clock })`, which should be given it too.
   */
  clock?: () => number;
  /** Where run-time warnings go (each code once per store). Default `console.warn`. */
  onWarning?: (warning: FloodgateWarning) => void;
}

export interface DurableObjectStoreConfig {
  namespace: LimiterNamespace;
  shards: number | undefined;
  clock: (() => number) | undefined;
  warn: Warn;
}

export function parseDurableObjectStoreOptions(options: DurableObjectStoreOptions): DurableObjectStoreConfig {
  const raw = requireObject('DurableObjectStore', options);
  rejectUnknownKeys('DurableObjectStore', raw, ['namespace', 'shards', 'clock', 'onWarning']);
  return {
    namespace: parseNamespace(raw.namespace),
    shards: parseShards(raw.shards),
    clock: raw.clock === undefined ? undefined : functionOption<() => number>('DurableObjectStore.clock', raw.clock),
    warn: onceWarner(
      raw.onWarning === undefined
        ? consoleWarning
        : functionOption<(warning: FloodgateWarning) => void>('DurableObjectStore.onWarning', raw.onWarning),
    ),
  };
}

function parseNamespace(value: unknown): LimiterNamespace {
  const namespace = value as Partial<LimiterNamespace> | null;
  if (
    typeof namespace !== 'object' ||
    namespace === null ||
    typeof namespace.idFromName !== 'function' ||
    typeof namespace.get !== 'function'
  ) {
    throw new InvalidOptionTypeError(
      `DurableObjectStore.namespace must be a Durable Object namespace binding (env.FLOODGATE, with idFromName and get), got ${show(value)}`,
    );
  }
  return namespace as LimiterNamespace;
}

function parseShards(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number') {
    throw new InvalidOptionTypeError(`DurableObjectStore.shards must be an integer >= 1, got ${show(value)}`);
  }
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new InvalidOptionError(`DurableObjectStore.shards must be an integer >= 1, got ${show(value)}`);
  }
  return value;
}
