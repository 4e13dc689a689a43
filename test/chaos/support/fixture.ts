import { afterEach } from 'vitest';
import { RedisStore } from '@floodgate/redis';
import { startRedis, type RedisServer } from '../../helpers/redis-server.ts';
import { ready, tunedClient } from '../../resilience/support.ts';
import { startApp, type ChaosApp } from './app.ts';
import type { Cluster, Redis, RedisOptions } from 'ioredis';

/** The store deadline every chaos app runs with, in ms. */
export const TIMEOUT = 100;
/** The breaker cooldown every chaos app runs with, in ms. */
export const COOLDOWN = 1000;

/** The app's options; `timeout` is TIMEOUT unless a scenario whose subject is not the deadline says otherwise. */
type AppOptions = Omit<Parameters<typeof startApp>[0], 'store' | 'breaker'>;

/** Starts the parts of a chaos test; each is stopped once the test ends. */
export interface ChaosParts {
  /** A private redis-server. */
  redis(): Promise<RedisServer>;
  /** A tunedClient on `port` (not awaited: see `ready`). */
  client(port: number, extra?: RedisOptions): Redis;
  /** Disconnects a client this file made itself (a cluster client, say) when the test ends. */
  disconnectAfter<C extends Redis | Cluster>(client: C): C;
  /** The chaos Express app on a RedisStore over `client`, with TIMEOUT and a breaker of COOLDOWN. */
  app(client: Redis | Cluster, options: AppOptions): Promise<ChaosApp>;
  /** A private redis-server, a tunedClient on it once ready, and the chaos app on that client. */
  redisApp(options: AppOptions, clientOptions?: RedisOptions): Promise<RedisApp>;
}

/** What `redisApp` started. */
export interface RedisApp {
  server: RedisServer;
  client: Redis;
  app: ChaosApp;
}

/**
 * Registers an afterEach that closes every app, then disconnects every client, then stops every
 * server the test started through the returned parts (a server left frozen is thawed first).
 * Call once at the top of a test file.
 */
export function useChaosParts(): ChaosParts {
  const apps: ChaosApp[] = [];
  const clients: (Redis | Cluster)[] = [];
  const servers: RedisServer[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    for (const client of clients.splice(0)) client.disconnect();
    for (const server of servers.splice(0)) {
      server.signal('SIGCONT');
      await server.stop();
    }
  });
  const disconnectAfter = <C extends Redis | Cluster>(client: C): C => {
    clients.push(client);
    return client;
  };
  const parts: ChaosParts = {
    async redis() {
      const server = await startRedis();
      servers.push(server);
      return server;
    },
    client: (port, extra) => disconnectAfter(tunedClient(port, extra)),
    disconnectAfter,
    async app(client, options) {
      const store = new RedisStore({ client });
      const app = await startApp({
        ...options,
        store,
        timeout: options.timeout ?? TIMEOUT,
        breaker: { cooldown: COOLDOWN },
      });
      apps.push(app);
      return app;
    },
    async redisApp(options, clientOptions) {
      const server = await parts.redis();
      const client = parts.client(server.port, clientOptions);
      await ready(client);
      return { server, client, app: await parts.app(client, options) };
    },
  };
  return parts;
}
