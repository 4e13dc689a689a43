import { configValue, isFunctionMissingMessage, isNoScriptMessage, stringArgs } from './adapter';
import type { RedisClientAdapter } from './adapter';

type GlideRoute = 'allPrimaries' | 'randomNode';

/** The part of a Valkey GLIDE client (`GlideClient` or `GlideClusterClient`) RedisStore uses. */
export interface GlideClientLike {
  customCommand(args: string[], options?: object): Promise<unknown>;
  invokeScript(script: never, options?: never): Promise<unknown>;
}

/** GlideClusterClient: the same, plus the route-taking methods only a cluster client has. */
export interface GlideClusterClientLike extends GlideClientLike {
  fcallWithRoute(func: never, args: never, options?: never): Promise<unknown>;
}

export function isGlideClient(client: object): client is GlideClientLike {
  const c = client as Partial<GlideClientLike>;
  return typeof c.customCommand === 'function' && typeof c.invokeScript === 'function';
}

function isGlideCluster(client: GlideClientLike): client is GlideClusterClientLike {
  return typeof (client as Partial<GlideClusterClientLike>).fcallWithRoute === 'function';
}

/** How long a Cluster slot table read with CLUSTER SLOTS is used before it is read again. */
export const GLIDE_SLOTS_MAX_AGE_MS = 1000;

/**
 * Adapter for Valkey GLIDE (`@valkey/valkey-glide` 2). Commands go through `customCommand`, with
 * every argument as a string; on a Cluster GLIDE routes a script call by its first key and follows
 * MOVED and ASK itself, and FUNCTION LOAD goes to all primaries. GLIDE keeps no slot table that a
 * caller can read, so for `masterOf` this adapter reads CLUSTER SLOTS itself, at most once a second
 * and only while RedisStore asks (off the request's path; 'unassigned' until the first read).
 * GLIDE has no offline queue: a command waits at most `requestTimeout` (default 250 ms), connected
 * or not.
 */
export function glideAdapter(client: GlideClientLike | GlideClusterClientLike): RedisClientAdapter {
  const cluster = isGlideCluster(client);
  const send = (args: string[], route?: GlideRoute) =>
    route === undefined || !cluster ? client.customCommand(args) : client.customCommand(args, { route });
  const adapter: RedisClientAdapter = {
    name: 'valkey-glide',
    cluster,
    offlineQueue: false,
    evalsha: (sha1, keys, args) => send(['EVALSHA', sha1, ...stringArgs(keys, args)]),
    eval: (source, keys, args) => send(['EVAL', source, ...stringArgs(keys, args)]),
    fcall: (fn, keys, args) => send(['FCALL', fn, ...stringArgs(keys, args)]),
    async functionLoad(source) {
      await send(['FUNCTION', 'LOAD', 'REPLACE', source], 'allPrimaries');
    },
    // GLIDE words NOSCRIPT as "NoScriptError: No matching script".
    isNoScript: isNoScriptMessage,
    isFunctionMissing: isFunctionMissingMessage,
    async configGet(parameter) {
      const reply = await send(['CONFIG', 'GET', parameter], 'allPrimaries');
      return (cluster ? perNode(reply, parameter) : [reply]).map((one) => configValue(one, parameter));
    },
  };
  if (cluster) adapter.masterOf = slotTable(() => send(['CLUSTER', 'SLOTS'], 'randomNode'));
  return adapter;
}

/**
 * The replies of a command sent to several nodes: GLIDE gives [{ key: "host:port", value: reply }]
 * (or { "host:port": reply }), and a single node's reply as is. A CONFIG GET reply is itself a map
 * of [{ key: parameter, value }], told apart by its key.
 */
function perNode(reply: unknown, parameter: string): unknown[] {
  const entry = (item: unknown): item is { key: unknown; value: unknown } =>
    typeof item === 'object' && item !== null && 'key' in item && 'value' in item;
  if (Array.isArray(reply) && reply.length > 0 && reply.every(entry)) {
    return reply.some((item) => String(item.key) === parameter) ? [reply] : reply.map((item) => item.value);
  }
  if (typeof reply === 'object' && reply !== null && !Array.isArray(reply) && !(reply instanceof Map)) {
    return parameter in reply ? [reply] : Object.values(reply);
  }
  return [reply];
}

/** A `masterOf` over a slot table read by `read` (CLUSTER SLOTS), refreshed in the background. */
function slotTable(read: () => Promise<unknown>): (slot: number) => string | undefined {
  let table: (string | undefined)[] = [];
  let readAt = Number.NEGATIVE_INFINITY;
  let reading = false;
  const refresh = () => {
    reading = true;
    readAt = Date.now();
    read().then(
      (reply) => {
        table = parseClusterSlots(reply);
        reading = false;
      },
      () => {
        reading = false;
      },
    );
  };
  return (slot) => {
    if (!reading && Date.now() - readAt >= GLIDE_SLOTS_MAX_AGE_MS) refresh();
    return table[slot];
  };
}

/** CLUSTER SLOTS -> slot -> "host:port" of its master. */
export function parseClusterSlots(reply: unknown): (string | undefined)[] {
  const table = new Array<string | undefined>(16384);
  if (!Array.isArray(reply)) return table;
  for (const range of reply) {
    if (!Array.isArray(range)) continue;
    const [start, end, master] = range as [unknown, unknown, unknown];
    if (!Array.isArray(master)) continue;
    const address = `${String(master[0])}:${String(master[1])}`;
    for (let slot = Number(start); slot <= Number(end) && slot < 16384; slot++) table[slot] = address;
  }
  return table;
}
