import { describe, expect, it } from 'vitest';
import { fixedWindow, MemoryStore, tokenBucket } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { ALGORITHM_KINDS, ROOMY } from './fixtures/algorithms.ts';
import { freshPrefix, layerKey, storedKey } from './fixtures/client.ts';
import { useRedis } from './fixtures/suite.ts';
import { commandsSentBy } from './fixtures/monitor.ts';

const suite = useRedis();

describe('layers on one node', () => {
  it.each(['eval', 'function'] as const)('a %s consume of three layers is one command on the wire', async (scripts) => {
    const store = new RedisStore({ client: suite.client, prefix: freshPrefix('one-command'), scripts });
    const calls = [
      { key: layerKey('ip', 'a'), algorithm: fixedWindow({ limit: 5, window: '1m' }), cost: 1 },
      { key: layerKey('user', 'b'), algorithm: tokenBucket({ capacity: 5, refillRate: 1 }), cost: 1 },
      { key: layerKey('org', 'c'), algorithm: fixedWindow({ limit: 50, window: '1h' }), cost: 1 },
    ];
    await store.consume(calls, 'warm-up'); // loads the script or library once
    const sent = await commandsSentBy(suite.client, () => store.consume(calls, 'measured'));
    expect(sent.map((args) => args[0]?.toLowerCase())).toEqual([scripts === 'eval' ? 'evalsha' : 'fcall']);
    expect(sent[0]?.[2]).toBe('3');
  });

  it.each(ALGORITHM_KINDS)('a deny in another layer leaves a %s layer byte for byte unchanged', async (kind) => {
    const prefix = freshPrefix(`deny-${kind}`);
    const store = new RedisStore({ client: suite.client, prefix, clock: 'client' });
    const open = { key: layerKey('open', 'x'), algorithm: ROOMY[kind](), cost: 1 };
    const shut = { key: layerKey('shut', 'x'), algorithm: fixedWindow({ limit: 1, window: '1h' }), cost: 1 };
    // A denied request on a fresh layer must not create its key either.
    await store.consume([shut], 'fill');
    const [, denied] = await store.consume([open, shut], 'first-deny');
    expect(denied?.allowed).toBe(false);
    expect(await suite.client.exists(storedKey(prefix, open.key))).toBe(0);

    await store.consume([open], 'charge');
    const before = await suite.client.dump(storedKey(prefix, open.key));
    const outcomes = await store.consume([open, shut], 'second-deny');
    expect(outcomes.map((outcome) => outcome.allowed)).toEqual([true, false]);
    expect(await suite.client.dump(storedKey(prefix, open.key))).toEqual(before);
  });

  it.each(ALGORITHM_KINDS)(
    'a %s layer that would allow reports its uncharged numbers when another denies',
    async (kind) => {
      const now = 1_700_000_000_000;
      const prefix = freshPrefix(`uncharged-${kind}`);
      const stores = [
        new RedisStore({ client: suite.client, prefix, clock: () => now }),
        new MemoryStore({ clock: () => now }),
      ];
      for (const store of stores) {
        const open = { key: layerKey('open', 'y'), algorithm: ROOMY[kind](), cost: 1 };
        const shut = { key: layerKey('shut', 'y'), algorithm: fixedWindow({ limit: 1, window: '1h' }), cost: 1 };
        await store.consume([shut], 'fill');
        const [charged] = await store.consume([open], 'charge');
        const [uncharged, denied] = await store.consume([open, shut], 'denied');
        expect(denied?.allowed).toBe(false);
        expect(uncharged).toEqual({ ...charged, delay: uncharged?.delay });
      }
    },
  );
});
