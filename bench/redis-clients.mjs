// ioredis clients for the benchmark, made with the settings packages/redis/README.md recommends,
// and the counters that show what actually goes over the wire.
import { createRequire } from 'node:module';

// ioredis is a dependency of @floodgate/redis only; resolve it from there.
const require = createRequire(new URL('../packages/redis/package.json', import.meta.url));
const ioredis = require('ioredis');
const Redis = ioredis.Redis ?? ioredis;

/** The recommended standalone settings, with auto-pipelining on or off; connected before use. */
export async function recommendedClient(port, enableAutoPipelining) {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 100,
    connectTimeout: 1000,
    reconnectOnError: null,
    enableAutoPipelining,
    lazyConnect: true,
  });
  await client.connect();
  return client;
}

/** A client for our own INFO calls: patient, since a busy machine must not end the benchmark. */
export async function adminClient(port) {
  const client = new Redis({ host: '127.0.0.1', port, commandTimeout: 5000, lazyConnect: true });
  await client.connect();
  return client;
}

/** ioredis' own version, as installed for @floodgate/redis. */
export const ioredisVersion = require('ioredis/package.json').version;

/**
 * Counts commands the client sends (every command, pipelined or not, goes through sendCommand)
 * and writes to its socket (a pipeline is one write). Patches this one instance only.
 */
export function countTraffic(client) {
  const counts = { commands: 0, writes: 0 };
  const send = client.sendCommand;
  client.sendCommand = function countedSend(...args) {
    counts.commands++;
    return send.apply(this, args);
  };
  const stream = client.stream;
  const write = stream.write;
  stream.write = function countedWrite(...args) {
    counts.writes++;
    return write.apply(this, args);
  };
  return counts;
}

/** Calls per command name from INFO commandstats (`cmdstat_evalsha:calls=12,...`). */
export async function commandCalls(admin) {
  const text = await admin.info('commandstats');
  const calls = {};
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[match[1]] = Number(match[2]);
  return calls;
}

/** The server's redis_version from INFO server. */
export async function serverVersion(admin) {
  const text = await admin.info('server');
  return /^redis_version:(.+)$/m.exec(text)?.[1]?.trim() ?? 'unknown';
}
