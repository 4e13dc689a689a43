import { afterAll, describe, expect, it } from 'vitest';
import { fixedWindow } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { GlideClient, Logger } from '@valkey/valkey-glide';
import Valkey from 'iovalkey';
import { createClient, createCluster, createSentinel } from 'redis';
import { useRedis } from '../../../test/redis/fixtures/suite.ts';
import type { FloodgateWarning } from '@floodgate/core';
import type { RedisClientAdapter } from '../src/clients';

const suite = useRedis();
const closers: (() => unknown)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});
Logger.setLoggerConfig('off');

/** The warnings a RedisStore over `client` gives at construction. */
function warningsFor(client: unknown): FloodgateWarning[] {
  const warnings: FloodgateWarning[] = [];
  new RedisStore({ client: client as RedisClientAdapter, onWarning: (warning) => warnings.push(warning) });
  return warnings;
}

const call = { key: 'fg:ip:{adapter}', algorithm: fixedWindow({ limit: 10, window: '1h' }), cost: 1 };

describe('clients RedisStore recognises, and their offline queue', () => {
  it('node-redis createClient(): warns while the offline queue is on, names the settings, silent with disableOfflineQueue', () => {
    const queued = warningsFor(createClient({ url: suite.url }));
    expect(queued.map((w) => w.code)).toEqual(['WARN_FLOODGATE_OFFLINE_QUEUE']);
    expect(queued[0]?.message).toMatch(/^the node-redis client .*disableOfflineQueue: true/);
    expect(warningsFor(createClient({ url: suite.url, disableOfflineQueue: true }))).toEqual([]);
  });

  it('node-redis createCluster(): the same, read from its defaults', () => {
    const rootNodes = [{ url: suite.url }];
    expect(warningsFor(createCluster({ rootNodes })).map((w) => w.code)).toEqual(['WARN_FLOODGATE_OFFLINE_QUEUE']);
    expect(warningsFor(createCluster({ rootNodes, defaults: { disableOfflineQueue: true } }))).toEqual([]);
  });

  it('node-redis createSentinel(): recognised as one (its sendCommand takes isReadonly first), and warned about, since it holds calls while it looks for a master', () => {
    const sentinel = createSentinel({ name: 'unused', sentinelRootNodes: [{ host: '127.0.0.1', port: 1 }] });
    const warnings = warningsFor(sentinel);
    expect(warnings.map((w) => w.code)).toEqual(['WARN_FLOODGATE_OFFLINE_QUEUE']);
    expect(warnings[0]?.message).toMatch(/^the node-redis sentinel client .*createSentinel\(\) holds calls/);
  });

  it('iovalkey: warns like ioredis unless enableOfflineQueue is false', () => {
    const queued = new Valkey(suite.url, { lazyConnect: true });
    const unqueued = new Valkey(suite.url, { lazyConnect: true, enableOfflineQueue: false });
    closers.push(
      () => queued.disconnect(),
      () => unqueued.disconnect(),
    );
    const warnings = warningsFor(queued);
    expect(warnings.map((w) => w.code)).toEqual(['WARN_FLOODGATE_OFFLINE_QUEUE']);
    expect(warnings[0]?.message).toContain('enableOfflineQueue: false');
    expect(warningsFor(unqueued)).toEqual([]);
  });

  it('Valkey GLIDE: no offline queue (a call waits at most requestTimeout), so no warning; decides', async () => {
    const { port } = new URL(suite.url);
    const client = await GlideClient.createClient({ addresses: [{ host: '127.0.0.1', port: Number(port) }] });
    closers.push(() => client.close());
    expect(warningsFor(client)).toEqual([]);
    const store = new RedisStore({ client, prefix: `glide-${process.pid}:` });
    expect((await store.consume([call], 'a'))[0]).toMatchObject({ allowed: true, remaining: 9 });
    expect(await store.checkEvictionPolicy()).toBe('noeviction');
  });

  it.each([
    ['an ioredis-like object claiming to be a Cluster without nodes()', { call: () => {}, isCluster: true }],
    ['an object with sendCommand only', { sendCommand: () => {} }],
    ['half an adapter', { evalsha: () => {}, eval: () => {}, cluster: false }],
  ])('rejects %s, naming RedisStore.client', (_, value) => {
    expect(() => new RedisStore({ client: value as unknown as RedisClientAdapter })).toThrow(/RedisStore\.client/);
  });
});

describe('a RedisClientAdapter written by hand', () => {
  it('is used as given: EVALSHA, EVAL only on its NOSCRIPT, its own offline-queue answer', async () => {
    const node = createClient({ url: suite.url, disableOfflineQueue: true });
    node.on('error', () => {});
    await node.connect();
    closers.push(() => node.destroy());
    const sent: string[] = [];
    const send = (args: (string | number)[]) => {
      sent.push(String(args[0]));
      return node.sendCommand(args.map(String));
    };
    const adapter: RedisClientAdapter = {
      name: 'hand-made',
      cluster: false,
      offlineQueue: undefined,
      evalsha: (sha1, keys, args) => send(['EVALSHA', sha1, keys.length, ...keys, ...args]),
      eval: (source, keys, args) => send(['EVAL', source, keys.length, ...keys, ...args]),
      fcall: (name, keys, args) => send(['FCALL', name, keys.length, ...keys, ...args]),
      functionLoad: async (source) => void (await send(['FUNCTION', 'LOAD', 'REPLACE', source])),
      isNoScript: (error) => /\bNOSCRIPT\b/.test(String(error)),
      isFunctionMissing: (error) => /function not found/i.test(String(error)),
    };
    const warnings: FloodgateWarning[] = [];
    const store = new RedisStore({
      client: adapter,
      prefix: `hand-${process.pid}:`,
      onWarning: (warning) => warnings.push(warning),
    });
    // It cannot tell whether its client queues: RedisStore says so, by the adapter's name.
    expect(warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^the hand-made client .*offline queue/)]);

    await node.sendCommand(['SCRIPT', 'FLUSH']);
    expect((await store.consume([call], 'a'))[0]).toMatchObject({ allowed: true, remaining: 9 });
    expect((await store.consume([call], 'b'))[0]).toMatchObject({ allowed: true, remaining: 8 });
    expect(sent).toEqual(['EVALSHA', 'EVAL', 'EVALSHA']);
    // No configGet: the eviction policy cannot be read, and that is no error.
    expect(await store.checkEvictionPolicy()).toBeUndefined();
  });
});
