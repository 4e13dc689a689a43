import { describe, expect, it } from 'vitest';
import { fixedWindow, StoreError } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { SCRIPT_SHA1, SCRIPT_SOURCE } from '../src/generated/lua';
import { parseReply } from '../src/protocol';
import { freshPrefix, layerKey } from '../../../test/redis/fixtures/client.ts';
import { useRedis } from '../../../test/redis/fixtures/suite.ts';

const suite = useRedis();

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

  it('prepends its prefix to every key it writes', async () => {
    const prefix = freshPrefix('prefix');
    const store = new RedisStore({ client: suite.client, prefix, clock: 'client' });
    const algorithm = fixedWindow({ limit: 5, window: 10_000 });
    await store.consume([{ key: layerKey('ip', 'x'), algorithm, cost: 1 }], 'r');
    expect(await suite.client.keys(`${prefix}*`)).toEqual([`${prefix}${layerKey('ip', 'x')}`]);
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

  it('answers an empty call list without asking Redis', async () => {
    const store = new RedisStore({ client: suite.client, prefix: freshPrefix('empty') });
    expect(await store.consume([], 'r')).toEqual([]);
  });
});

describe('reply shape', () => {
  it.each([
    ['not an array', 'OK'],
    ['too short', [1, 1, 1]],
    ['a string where an integer belongs', [1, 1, '1', 2, 0]],
    ['a fraction', [1, 1, 1, 2.5, 0]],
    ['a status that disagrees with its layers', [1, 1, 1, 2, -5]],
    ['a status out of range', [1, 7, 1, 2, 0]],
    ['too long', [1, 1, 1, 2, 0, 0]],
  ])('rejects a reply that is %s with StoreError', (_, reply) => {
    const request = {
      op: 'consume' as const,
      id: '',
      layers: [
        {
          key: 'k',
          kind: 'fixedWindow',
          cost: 1,
          limit: 2,
          params: [2, 1000, 0],
          shadow: false,
          flags: 0,
          penalty: undefined,
          strikes: undefined,
        },
      ],
    };
    expect(() => parseReply(reply, [request])).toThrow(StoreError);
  });

  it('gives a request that failed inside the script its own error, and the others their numbers', () => {
    const layer = {
      key: 'k',
      kind: 'fixedWindow',
      cost: 1,
      limit: 2,
      params: [2, 1000, 0],
      shadow: false,
      flags: 0,
      penalty: undefined,
      strikes: undefined,
    };
    const request = { op: 'consume' as const, id: '', layers: [layer] };
    const { answers } = parseReply([5, -1, 'ERR boom', 0, 0, 10, -31], [request, request]);
    expect(answers[0]).toMatchObject({ ok: false, error: { message: 'Redis consume failed: ERR boom' } });
    expect(answers[1]).toEqual({
      ok: true,
      reset: false,
      outcomes: [{ allowed: false, limit: 2, remaining: 0, resetAt: 10, retryAfter: 30, delay: 0 }],
    });
  });
});
