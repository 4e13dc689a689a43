import { afterAll, beforeAll } from 'vitest';
import { redisForSuite } from '../../../test/helpers/redis-server.ts';
import { connectClient } from './connect';
import type { Redis } from 'ioredis';

/**
 * Registers the beforeAll/afterAll of a suite on one node: the server redisForSuite gives
 * (REDIS_URL or a private one) and a client connected to it, disconnected and the private server
 * stopped after the file's tests. Call once at the top of a test file; read `client` inside tests.
 *
 * @example const suite = useRedis(); it('…', async () => expect(await suite.client.ping()).toBe('PONG'));
 */
export function useRedis(): { readonly client: Redis } {
  let server: { url: string; stop(): Promise<void> } | undefined;
  let client: Redis | undefined;
  beforeAll(async () => {
    server = await redisForSuite();
    client = await connectClient(server.url);
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.stop();
  });
  return {
    get client() {
      if (client === undefined) throw new Error('useRedis: read the client inside a test or hook, after beforeAll');
      return client;
    },
  };
}
