import { Redis, type RedisOptions } from 'ioredis';

/**
 * An ioredis client with the settings reliability.md recommends (no offline queue, no per-request
 * retries, a command timeout), reconnecting every 50 ms so tests do not wait on back-off.
 * Not awaited: the limiter must cope with a client that is not ready yet.
 */
export function tunedClient(port: number, extra: RedisOptions = {}): Redis {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1000,
    connectTimeout: 1000,
    retryStrategy: () => 50,
    reconnectOnError: null,
    ...extra,
  });
  // Connection errors are expected in these suites; the limiter reports store errors itself.
  client.on('error', () => {});
  return client;
}

/** Resolves once the client is ready to take commands. */
export function ready(client: Redis): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => client.once('ready', () => resolve()));
}

/** Calls of `commands` recorded by INFO commandstats on the server at `port` (admin connection). */
export async function commandCalls(port: number, commands: readonly string[] = ['evalsha', 'eval']): Promise<number> {
  const admin = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await admin.connect();
    const info = await admin.info('commandstats');
    let total = 0;
    for (const command of commands) {
      const match = new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(info);
      total += match ? Number(match[1]) : 0;
    }
    return total;
  } finally {
    admin.disconnect();
  }
}

/** Runs one command on the server at `port` over a private connection. */
export async function adminCommand(port: number, ...args: (string | number)[]): Promise<unknown> {
  const admin = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await admin.connect();
    return await admin.call(...(args as [string, ...(string | number)[]]));
  } finally {
    admin.disconnect();
  }
}

let counter = 0;

/** A limiter prefix no other test uses. */
export function freshPrefix(name: string): string {
  counter += 1;
  return `rs-${name}-${process.pid}-${counter}`;
}

/** A KeyContext for an IP. */
export const ctxFor = (ip: string) => ({ ip, header: () => undefined, req: {} });
