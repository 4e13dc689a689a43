import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { RedisStore } from '@floodgate/redis';
import { afterEach } from 'vitest';
import { type RedisServer, startRedis } from '../../../../test/helpers/redis-server.ts';
import { buildApp } from '../../src/app.js';
import { createStore } from '../../src/store.js';
import type { Gateway } from './gateway.ts';

type BuildOptions = Parameters<typeof buildApp>[0];

/** A gateway on Redis, with its ioredis client. */
export interface RedisGateway extends Gateway {
  readonly client: Redis;
}

/** What a Redis test starts; everything is stopped after the test, the last started first. */
export interface RedisParts {
  /** A private redis-server on a free port. */
  redis(): Promise<RedisServer>;
  /** One gateway instance on the Redis at `url`, on the client src/store.js makes (one per instance). */
  gateway(url: string, options?: Partial<BuildOptions>): Promise<RedisGateway>;
  /**
   * The same, on a client and a deadline that wait up to 2 s: for tests that count what Redis
   * decides, which a busy machine must not turn into local decisions by answering late.
   */
  patientGateway(url: string, options?: Partial<BuildOptions>): Promise<RedisGateway>;
  defer(teardown: () => unknown): void;
}

export function useRedisParts(): RedisParts {
  const teardowns: (() => unknown)[] = [];
  afterEach(async () => {
    for (const teardown of teardowns.splice(0).reverse()) await teardown();
  });
  const defer = (teardown: () => unknown) => {
    teardowns.push(teardown);
  };
  const listen = async (store: BuildOptions['store'], client: Redis, options: Partial<BuildOptions>) => {
    const app = await buildApp({ store, ...options });
    defer(() => app.close());
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, app, client };
  };
  return {
    async redis() {
      const server = await startRedis();
      defer(() => server.stop());
      return server;
    },
    async gateway(url, options = {}) {
      const { store, client, close } = await createStore(url);
      defer(close);
      return listen(store, client as Redis, options);
    },
    async patientGateway(url, options = {}) {
      const client = new Redis(url, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: 2000,
        reconnectOnError: null,
        lazyConnect: true,
      });
      await client.connect();
      defer(() => client.quit());
      return listen(new RedisStore({ client }), client, { timeout: '2s', ...options });
    },
    defer,
  };
}

/** Resolves once `client` is connected and ready for commands. */
export function ready(client: Redis): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => client.once('ready', () => resolve()));
}
