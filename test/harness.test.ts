import { afterAll, describe, expect, it } from 'vitest';
import { ping, startRedis, type RedisServer } from './helpers/redis-server.ts';

describe('redis-server harness', () => {
  let server: RedisServer | undefined;
  afterAll(() => server?.stop());

  it('starts a private server on a free port, kills it and starts it again', async () => {
    server = await startRedis();
    expect(server.port).not.toBe(6379);
    expect(await ping(server.port)).toBe(true);
    await server.kill();
    expect(server.pid).toBeUndefined();
    expect(await ping(server.port)).toBe(false);
    await server.start();
    expect(await ping(server.port)).toBe(true);
  });
});
