/** A script argument: RedisStore sends integers and strings only. */
export type ScriptArgument = string | number;

/**
 * What RedisStore needs from a Redis client. RedisStore builds one itself for ioredis, iovalkey,
 * node-redis (`redis`) and Valkey GLIDE clients; implement it to use any other client, and pass it
 * as `client`. Every method sends exactly one command (FUNCTION LOAD: one per master) and never
 * retries: RedisStore decides what is retried, and it retries only NOSCRIPT and a missing function.
 *
 * Replies are passed through as the client decodes them: RedisStore reads arrays of integers and
 * strings (RESP2 and RESP3 decode Lua's replies alike).
 *
 * @example
 * const adapter: RedisClientAdapter = {
 *   name: 'my-client',
 *   cluster: false,
 *   offlineQueue: false,
 *   evalsha: (sha1, keys, args) => my.send(['EVALSHA', sha1, keys.length, ...keys, ...args]),
 *   eval: (source, keys, args) => my.send(['EVAL', source, keys.length, ...keys, ...args]),
 *   fcall: (name, keys, args) => my.send(['FCALL', name, keys.length, ...keys, ...args]),
 *   functionLoad: async (source) => void (await my.send(['FUNCTION', 'LOAD', 'REPLACE', source])),
 *   isNoScript: (error) => /\bNOSCRIPT\b/.test(String(error)),
 *   isFunctionMissing: (error) => /function not found/i.test(String(error)),
 * };
 * new RedisStore({ client: adapter });
 */
export interface RedisClientAdapter {
  /** The client family, for messages: 'ioredis', 'iovalkey', 'node-redis', 'valkey-glide', or yours. */
  readonly name: string;
  /**
   * True for a Cluster client. RedisStore then sends one call per hash slot (every key of a call
   * shares the slot) and routes nothing itself: the client must send a call to the master of its
   * keys' slot, following MOVED and ASK.
   */
  readonly cluster: boolean;
  /**
   * Whether the client queues commands while it is not connected (undefined: it cannot tell).
   * RedisStore warns (WARN_FLOODGATE_OFFLINE_QUEUE) when this is not `false`.
   */
  readonly offlineQueue: boolean | undefined;
  /** `EVALSHA sha1 numkeys ...keys ...args`. */
  evalsha(sha1: string, keys: readonly string[], args: readonly ScriptArgument[]): Promise<unknown>;
  /** `EVAL source numkeys ...keys ...args` (also caches the script on the node that ran it). */
  eval(source: string, keys: readonly string[], args: readonly ScriptArgument[]): Promise<unknown>;
  /** `FCALL name numkeys ...keys ...args`. */
  fcall(name: string, keys: readonly string[], args: readonly ScriptArgument[]): Promise<unknown>;
  /** `FUNCTION LOAD REPLACE source`, on every master of a Cluster; resolves once all have it. */
  functionLoad(source: string): Promise<void>;
  /** True when `error` is Redis' NOSCRIPT reply to EVALSHA, however the client wraps it. */
  isNoScript(error: unknown): boolean;
  /** True when `error` is FCALL's reply for a function that is not loaded ('Function not found'). */
  isFunctionMissing(error: unknown): boolean;
  /**
   * Cluster only: the master serving `slot` as the client currently sees it ("host:port"), or
   * undefined when it does not know. Synchronous: it is asked on every request, to give each master
   * its own circuit breaker. Without it a Cluster is one breaker.
   */
  masterOf?(slot: number): string | undefined;
  /**
   * Optional: how many times the client has become ready (connected, able to take commands) since
   * RedisStore met it; it grows with every reconnect. With it, a limiter whose circuit breaker is
   * open probes Redis as soon as the client has reconnected, instead of at its next scheduled probe.
   */
  readyCount?(): number;
  /**
   * Optional: `CONFIG GET parameter` on the node, or on every master of a Cluster; one value per
   * node (undefined where the reply has none). Used once, to warn about an evicting
   * `maxmemory-policy`; may reject when CONFIG is disabled.
   */
  configGet?(parameter: string): Promise<(string | undefined)[]>;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : typeof error === 'string' ? error : '';
}

/** NOSCRIPT anywhere in the message: clients wrap replies in their own text (see each adapter). */
export function isNoScriptMessage(error: unknown): boolean {
  return /\bNOSCRIPT\b|\bNoScriptError\b/.test(messageOf(error));
}

export function isFunctionMissingMessage(error: unknown): boolean {
  return /function not found/i.test(messageOf(error));
}

/** `numkeys ...keys ...args` as strings, for clients that take string arguments only. */
export function stringArgs(keys: readonly string[], args: readonly ScriptArgument[]): string[] {
  const out = new Array<string>(keys.length + args.length + 1);
  out[0] = String(keys.length);
  for (let i = 0; i < keys.length; i++) out[i + 1] = keys[i] as string;
  for (let i = 0; i < args.length; i++) out[keys.length + 1 + i] = String(args[i]);
  return out;
}

/** The value of `parameter` in a CONFIG GET reply: a flat [name, value] array (RESP2) or a map (RESP3). */
export function configValue(reply: unknown, parameter: string): string | undefined {
  if (Array.isArray(reply)) {
    if (typeof reply[0] === 'string' || reply[0] instanceof Uint8Array) {
      const at = reply.findIndex((item, index) => index % 2 === 0 && String(item) === parameter);
      return at === -1 ? undefined : String(reply[at + 1]);
    }
    // GLIDE decodes RESP3 maps as [{ key, value }].
    const entry = reply.find(
      (item): item is { key: unknown; value: unknown } =>
        typeof item === 'object' && item !== null && 'key' in item && String(item.key) === parameter,
    );
    return entry === undefined ? undefined : String(entry.value);
  }
  if (reply instanceof Map) {
    const value = reply.get(parameter);
    return value === undefined ? undefined : String(value);
  }
  if (typeof reply === 'object' && reply !== null && parameter in reply) {
    return String((reply as Record<string, unknown>)[parameter]);
  }
  return undefined;
}
