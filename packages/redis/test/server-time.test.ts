import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedWindow } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { startRedis } from '../../../test/helpers/redis-server.ts';
import { connectClient, freshPrefix, layerKey } from '../../../test/redis/fixtures/client.ts';
import type { FloodgateWarning } from '@floodgate/core';
import type { Redis } from 'ioredis';
import type { RedisServer } from '../../../test/helpers/redis-server.ts';

// A private server: the test adds ACL users to it.
let server: RedisServer;
let admin: Redis;
const clients: Redis[] = [];

beforeAll(async () => {
  server = await startRedis();
  admin = await connectClient(server.url);
  // Scripts run with their caller's permissions: these users stand for services that refuse TIME
  // inside scripts, and for a script error that has nothing to do with the clock.
  await admin.call('ACL', 'SETUSER', 'no-time', 'on', 'nopass', '~*', '&*', '+@all', '-time');
  await admin.call('ACL', 'SETUSER', 'no-hset', 'on', 'nopass', '~*', '&*', '+@all', '-hset');
});
afterAll(async () => {
  for (const client of [admin, ...clients]) client?.disconnect();
  await server?.stop();
});

async function clientAs(username: string): Promise<Redis> {
  const client = await connectClient(server.url, { username, password: 'unused' });
  clients.push(client);
  return client;
}

/** EVALSHA and EVAL calls the server has run (failed ones included). */
async function scriptCalls(): Promise<{ evalsha: number; eval: number }> {
  const stats = await admin.info('commandstats');
  const calls = (name: string) => Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
  return { evalsha: calls('evalsha'), eval: calls('eval') };
}

// An hour-long window: the first test runs on this process' real clock, and an hour boundary
// between its three requests (which would reset the count) is as good as impossible.
const call = { key: layerKey('ip', 'a'), algorithm: fixedWindow({ limit: 5, window: '1h' }), cost: 1 };

describe('a Redis whose scripts may not call TIME (catalogue B29)', () => {
  it("switches to this process' clock at the first refusal, answers that call, and warns once", async () => {
    const warnings: FloodgateWarning[] = [];
    const onWarning = (warning: FloodgateWarning) => warnings.push(warning);
    {
      const store = new RedisStore({ client: await clientAs('no-time'), prefix: freshPrefix('no-time'), onWarning });
      expect(store.clock).toBe('server');
      const before = Date.now();
      const [first] = await store.consume([call], 'r1');
      const after = Date.now();
      // A one-hour fixed window on this process' clock: it ends on the next whole hour.
      expect(first).toMatchObject({ allowed: true, remaining: 4 });
      expect(first?.resetAt ?? 0).toBeGreaterThan(before);
      expect(first?.resetAt ?? 0).toBeLessThanOrEqual(after + 3_600_000);
      expect((first?.resetAt ?? 1) % 3_600_000).toBe(0);
      expect(store.clock).toBe('client');
      expect((await store.consume([call], 'r2'))[0]).toMatchObject({ allowed: true, remaining: 3 });
      expect((await store.consume([call], 'r3'))[0]).toMatchObject({ allowed: true, remaining: 2 });
      const clockWarnings = warnings.filter((w) => w.code === 'WARN_FLOODGATE_SERVER_TIME');
      expect(clockWarnings).toHaveLength(1);
      expect(clockWarnings[0]?.message).toMatch(/does not let scripts call TIME/);
    }
  });

  it('keeps the server clock and reports the error when a script fails for another reason', async () => {
    const store = new RedisStore({ client: await clientAs('no-hset'), prefix: freshPrefix('no-hset') });
    await expect(store.consume([call], 'r1')).rejects.toMatchObject({
      code: 'ERR_FLOODGATE_STORE',
      message: expect.stringMatching(/^Redis consume failed: .*can't run this command/),
    });
    expect(store.clock).toBe('server');
    // Each failing call is one script call: nothing is sent again for an error that is not the clock's.
    const before = await scriptCalls();
    await expect(store.consume([call], 'r2')).rejects.toMatchObject({ code: 'ERR_FLOODGATE_STORE' });
    expect(await scriptCalls()).toEqual({ evalsha: before.evalsha + 1, eval: before.eval });
    expect(store.clock).toBe('server');
  });
});
