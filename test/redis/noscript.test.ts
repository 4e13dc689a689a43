import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedWindow, StoreError } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { SCRIPT_SOURCE } from '../../packages/redis/src/generated/lua.ts';
import { startRedis } from '../helpers/redis-server.ts';
import { connectClient, freshPrefix, layerKey } from './fixtures/client.ts';
import { commandsSentBy } from './fixtures/monitor.ts';
import type { Redis } from 'ioredis';
import type { RedisServer } from '../helpers/redis-server.ts';

// A private server: these tests flush its scripts and restart it.
let server: RedisServer;
let client: Redis;

beforeAll(async () => {
  server = await startRedis();
  client = await connectClient(server.url, { retryStrategy: () => 20 });
  // Connection errors while the server is down are expected here; reconnects are awaited below.
  client.on('error', () => {});
});
afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

const call = { key: layerKey('ip', 'n'), algorithm: fixedWindow({ limit: 10, window: '1h' }), cost: 1 };
const names = (sent: string[][]) => sent.map((args) => args[0]?.toLowerCase());

async function restartServer(): Promise<void> {
  const ready = new Promise((resolve) => client.once('ready', resolve));
  await server.kill();
  await server.start();
  await ready;
}

describe("scripts: 'eval'", () => {
  it('survives SCRIPT FLUSH between two calls: EVALSHA, NOSCRIPT, EVAL, same state', async () => {
    const store = new RedisStore({ client, prefix: freshPrefix('flush') });
    expect((await store.consume([call], 'a'))[0]?.remaining).toBe(9);
    await client.script('FLUSH');
    let second: Awaited<ReturnType<RedisStore['consume']>> = [];
    const sent = await commandsSentBy(client, async () => {
      second = await store.consume([call], 'b');
    });
    expect(second[0]).toMatchObject({ allowed: true, remaining: 8 });
    expect(names(sent)).toEqual(['evalsha', 'eval']);
    const [, again] = await Promise.all([client.script('EXISTS', 'x'), store.consume([call], 'c')]);
    expect(again[0]?.remaining).toBe(7);
  });

  it('survives SCRIPT FLUSH before a two-layer consume and before a refund (catalogue A8)', async () => {
    const store = new RedisStore({ client, prefix: freshPrefix('flush-layers') });
    const user = { key: layerKey('user', 'n'), algorithm: fixedWindow({ limit: 5, window: '1h' }), cost: 1 };
    await store.consume([call, user], 'a');
    await client.script('FLUSH');
    expect(await store.consume([call, user], 'b')).toMatchObject([{ remaining: 8 }, { remaining: 3 }]);
    await client.script('FLUSH');
    await store.refund([call, user], 'c');
    expect(await store.consume([call, user], 'd')).toMatchObject([{ remaining: 8 }, { remaining: 3 }]);
  });

  it('survives a Redis restart between two calls', async () => {
    const store = new RedisStore({ client, prefix: freshPrefix('restart') });
    expect((await store.consume([call], 'a'))[0]?.allowed).toBe(true);
    await restartServer();
    // Memory is gone with the process (no persistence): a fresh window, and no error.
    expect((await store.consume([call], 'b'))[0]).toMatchObject({ allowed: true, remaining: 9 });
  });

  it('retries only on NOSCRIPT: any other error surfaces and EVAL is never sent', async () => {
    // A user that may not write hashes: the script runs and fails at its first HSET.
    await client.call('ACL', 'SETUSER', 'no-hset', 'on', 'nopass', '~*', '&*', '+@all', '-hset');
    const limited = await connectClient(server.url, { username: 'no-hset', password: 'unused' });
    try {
      const store = new RedisStore({ client: limited, prefix: freshPrefix('no-hset') });
      await client.script('LOAD', SCRIPT_SOURCE);
      let failure: unknown;
      const sent = await commandsSentBy(limited, async () => {
        failure = await store.consume([call], 'a').catch((error: unknown) => error);
      });
      expect(failure).toBeInstanceOf(StoreError);
      expect(String(failure)).toMatch(/^StoreError: Redis consume failed: .*can't run this command/);
      expect(names(sent)).toEqual(['evalsha']);
    } finally {
      limited.disconnect();
    }
  });
});

describe("scripts: 'function'", () => {
  it('survives FUNCTION FLUSH between two calls by loading the library again', async () => {
    const store = new RedisStore({ client, prefix: freshPrefix('fn-flush'), scripts: 'function' });
    expect((await store.consume([call], 'a'))[0]?.remaining).toBe(9);
    await client.call('FUNCTION', 'FLUSH');
    let second: Awaited<ReturnType<RedisStore['consume']>> = [];
    const sent = await commandsSentBy(client, async () => {
      second = await store.consume([call], 'b');
    });
    expect(second[0]).toMatchObject({ allowed: true, remaining: 8 });
    expect(names(sent)).toEqual(['fcall', 'function', 'fcall']);
  });

  it('survives a Redis restart between two calls', async () => {
    const store = new RedisStore({ client, prefix: freshPrefix('fn-restart'), scripts: 'function' });
    expect((await store.consume([call], 'a'))[0]?.allowed).toBe(true);
    await restartServer();
    expect((await store.consume([call], 'b'))[0]).toMatchObject({ allowed: true, remaining: 9 });
  });
});
