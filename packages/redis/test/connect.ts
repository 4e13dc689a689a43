import { Redis } from 'ioredis';

/** A client with the settings the README recommends, resolved once it is ready to take commands. */
export async function connectClient(url: string, extra: Record<string, unknown> = {}): Promise<Redis> {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 2000,
    lazyConnect: true,
    ...extra,
  });
  await client.connect();
  return client;
}

let counter = 0;

/** A key prefix no other test uses, so suites may share a server (REDIS_URL). */
export function freshPrefix(name: string): string {
  counter += 1;
  return `fgtest:${name}:${process.pid}:${Date.now().toString(36)}:${counter}:`;
}

/** A LayerCall key as the limiter builds it: `prefix:rule:{identity}`. */
export function layerKey(rule: string, identity: string): string {
  return `fg:${rule}:{${identity}}`;
}
