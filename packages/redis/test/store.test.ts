import { describe, expect, it } from 'vitest';
import { fixedWindow, gcra, StoreError } from '@floodgate/core';
import type { Algorithm } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { SCRIPT_SHA1, SCRIPT_SOURCE } from '../src/generated/lua';
import { parseReply, scriptCall, toWireLayer } from '../src/protocol';
import { connectClient, freshPrefix, layerKey, storedKey } from '../../../test/redis/fixtures/client.ts';
import { useRedis } from '../../../test/redis/fixtures/suite.ts';

const suite = useRedis();

async function evalshaCalls(): Promise<number> {
  const stats = String(await suite.client.info('commandstats'));
  return Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

describe('RedisStore on one node', () => {
  it('embeds the script with the SHA-1 Redis computes for it', async () => {
    expect(await suite.client.script('LOAD', SCRIPT_SOURCE)).toBe(SCRIPT_SHA1);
  });

  it('decides fixedWindow with the client clock exactly as the model says', async () => {
    let now = 60_000;
    const store = new RedisStore({ client: suite.client, clock: () => now, prefix: freshPrefix('fw') });
    const call = { key: layerKey('ip', 'a'), algorithm: fixedWindow({ limit: 2, window: '1m' }), cost: 1 };
    expect(await store.consume([call], 'r1')).toEqual([
      { allowed: true, limit: 2, remaining: 1, resetAt: 120_000, retryAfter: 0, delay: 0 },
    ]);
    await store.consume([call], 'r2');
    now = 90_000;
    expect(await store.consume([call], 'r3')).toEqual([
      { allowed: false, limit: 2, remaining: 0, resetAt: 120_000, retryAfter: 30_000, delay: 0 },
    ]);
    await store.refund([call], '');
    expect((await store.consume([call], 'r4'))[0]).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("counts its client's ready connections with one listener, however many stores share the client (issue 19, item 14)", async () => {
    const client = await connectClient(suite.url);
    try {
      const listeners = client.listenerCount('ready');
      const stores = Array.from({ length: 20 }, () => new RedisStore({ client }));
      expect(client.listenerCount('ready')).toBe(listeners + 1);
      expect(stores.map((store) => store.readyCount)).toEqual(new Array(20).fill(0));
      client.emit('ready');
      expect(stores.map((store) => store.readyCount)).toEqual(new Array(20).fill(1));
    } finally {
      client.disconnect();
    }
  });

  it('prepends its prefix to every key it writes', async () => {
    const prefix = freshPrefix('prefix');
    const store = new RedisStore({ client: suite.client, prefix, clock: 'client' });
    const algorithm = fixedWindow({ limit: 5, window: 10_000 });
    await store.consume([{ key: layerKey('ip', 'x'), algorithm, cost: 1 }], 'r');
    expect(await suite.client.keys(`${prefix}*`)).toEqual([storedKey(prefix, layerKey('ip', 'x'))]);
  });

  it('reports resetAt in the app clock when Redis keeps the time', async () => {
    const store = new RedisStore({ client: suite.client, prefix: freshPrefix('server-clock') });
    const algorithm = fixedWindow({ limit: 5, window: 1000 });
    const before = Date.now();
    const [outcome] = await store.consume([{ key: layerKey('ip', 'y'), algorithm, cost: 1 }], 'r');
    const after = Date.now();
    // Server and client share a machine here, so the shifted resetAt lies in the window just ahead.
    expect(outcome?.resetAt).toBeGreaterThan(before);
    expect(outcome?.resetAt).toBeLessThanOrEqual(after + 1000);
  });

  it('runs the same script as a Redis Functions library', async () => {
    const store = new RedisStore({
      client: suite.client,
      prefix: freshPrefix('fn'),
      scripts: 'function',
      clock: () => 5_000,
    });
    const call = { key: layerKey('ip', 'f'), algorithm: fixedWindow({ limit: 1, window: 1000 }), cost: 1 };
    expect((await store.consume([call], 'a'))[0]?.allowed).toBe(true);
    expect((await store.consume([call], 'b'))[0]).toMatchObject({ allowed: false, retryAfter: 1000 });
  });

  it('decides the requests of one turn in one call, each on its own keys, whatever their shapes', async () => {
    const store = new RedisStore({ client: suite.client, prefix: freshPrefix('turn'), clock: () => 60_000 });
    const small = fixedWindow({ limit: 2, window: '1m' });
    const other = gcra({ rate: 1, period: '1m', burst: 0 });
    const one = (name: string, algorithm: Algorithm = small, cost = 1) => [
      { key: layerKey('ip', name), algorithm, cost },
    ];
    const before = await evalshaCalls();
    // Runs of the same shape (sent as repeats) between requests of other shapes, keys reused.
    const answers = await Promise.all([
      store.consume(one('a'), ''),
      store.consume(one('b'), ''),
      store.consume(one('a'), ''),
      store.consume(one('a'), ''),
      store.consume(one('c', small, 2), ''),
      store.consume(one('d', other), ''),
      store.consume(one('d', other), ''),
      store.consume([...one('e'), ...one('f', other)], ''),
      store.consume([...one('e'), ...one('f', other)], ''),
      store.consume(one('b'), ''),
    ]);
    expect(await evalshaCalls()).toBe(before + 1);
    expect(answers.map((outcomes) => outcomes.map((outcome) => outcome.allowed))).toEqual([
      [true],
      [true],
      [true],
      [false],
      [true],
      [true],
      [false],
      [true, true],
      // gcra denies: the fixedWindow layer reports its numbers, uncharged.
      [true, false],
      [true],
    ]);
    const fixedWindowRemaining = [0, 1, 2, 3, 4, 7, 8, 9].map((index) => answers[index]?.[0]?.remaining);
    expect(fixedWindowRemaining).toEqual([1, 1, 0, 0, 0, 1, 1, 0]);
  });

  it('sends a run of requests of one shape as one repeat', () => {
    const layer = (name: string, cost = 1) =>
      toWireLayer({ key: layerKey('ip', name), algorithm: fixedWindow({ limit: 2, window: '1m' }), cost }, 'p:');
    const request = (name: string, cost = 1, id = '') => ({ op: 'consume' as const, id, layers: [layer(name, cost)] });
    const { keys, args } = scriptCall(5, [
      request('a'),
      request('b'),
      request('c'),
      request('d', 2),
      request('e', 2, 'r1'),
      request('f', 2, 'r1'),
    ]);
    expect(keys).toHaveLength(6);
    // now and the spec count, one spec (kind, flags, 3 for the penalty, 3 params), then the requests.
    expect(args.slice(10)).toEqual(['c', '', 1, 1, 1, '=', 2, 'c', '', 1, 1, 2, 'c', 'r1', 1, 1, 2, '=', 1]);
  });

  it('answers an empty call list without asking Redis', async () => {
    const store = new RedisStore({ client: suite.client, prefix: freshPrefix('empty') });
    expect(await store.consume([], 'r')).toEqual([]);
  });
});

describe('reply shape', () => {
  // One fixedWindow layer of limit 2 on key 'k', as the store puts it on the wire.
  const LAYER = toWireLayer({ key: 'k', algorithm: fixedWindow({ limit: 2, window: 1000 }), cost: 1 }, '');

  it.each([
    ['not an array', 'OK'],
    ['too short', [1, 1, 1]],
    ['a status out of range', [1, 7, 1, 2, 0]],
    ['too long', [1, 1, 1, 2, 0, 0]],
  ])('rejects a reply that is %s with StoreError', (_, reply) => {
    const request = { op: 'consume' as const, id: '', layers: [LAYER] };
    expect(() => parseReply(reply, [request])).toThrow(StoreError);
  });

  it.each([
    ['a string where an integer belongs', [1, '1', 2, 0]],
    ['a fraction', [1, 1, 2.5, 0]],
    ['a number past 2^53', [1, 1, 2 ** 53 + 2, 0]],
    ['a status that disagrees with its layers', [1, 1, 2, -5]],
  ])('fails only the request whose answer is %s; its neighbours keep theirs (issue 19, item 4)', (_, bad) => {
    const request = { op: 'consume' as const, id: '', layers: [LAYER] };
    const { answers } = parseReply([5, 1, 1, 10, 0, ...bad, 1, 0, 10, 0], [request, request, request]);
    expect(answers.map((answer) => answer.ok)).toEqual([true, false, true]);
    expect(answers[1]).toMatchObject({ ok: false, error: expect.any(StoreError) });
    expect(answers[2]).toMatchObject({ ok: true, outcomes: [{ allowed: true, remaining: 0, resetAt: 10 }] });
  });

  it('gives a request that failed inside the script its own error, and the others their numbers', () => {
    const request = { op: 'consume' as const, id: '', layers: [LAYER] };
    const { answers } = parseReply([5, -1, 'ERR boom', 0, 0, 10, -31], [request, request]);
    expect(answers[0]).toMatchObject({ ok: false, error: { message: 'Redis consume failed: ERR boom' } });
    expect(answers[1]).toEqual({
      ok: true,
      reset: false,
      outcomes: [{ allowed: false, limit: 2, remaining: 0, resetAt: 10, retryAfter: 30, delay: 0 }],
    });
  });
});
