import { describe, expect, it } from 'vitest';
import { RedisStore } from '@floodgate/redis';
import { useRedis } from '../../../test/redis/fixtures/suite.ts';
import type { Redis } from 'ioredis';

const suite = useRedis();

describe('RedisStore options', () => {
  it.each([
    ['an unknown option', { retries: 1 }, /unknown option "retries"/],
    ['a prefix with a brace', { prefix: 'app{1}:' }, /RedisStore.prefix/],
    ['a prefix that is not a string', { prefix: 5 }, /RedisStore.prefix/],
    ['an unknown clock', { clock: 'app' }, /RedisStore.clock/],
    ['an unknown scripts mode', { scripts: 'evalsha' }, /RedisStore.scripts/],
    ['a zero timeout', { timeout: 0 }, /RedisStore.timeout/],
    ['a NaN timeout', { timeout: Number.NaN }, /RedisStore.timeout/],
    ['a fractional timeout', { timeout: 1.5 }, /RedisStore.timeout/],
    ['a timeout past the longest timer', { timeout: '25d' }, /RedisStore\.timeout .*to 2147483647 .*got "25d"/],
  ])('rejects %s, naming the option', (_, extra, message) => {
    expect(() => new RedisStore({ client: suite.client, ...(extra as object) })).toThrow(message);
  });

  it.each([
    ['missing', undefined],
    ['a URL string', 'redis://127.0.0.1'],
    ['a plain object', {}],
  ])('rejects a client that is %s', (_, value) => {
    expect(() => new RedisStore({ client: value as unknown as Redis })).toThrow(/RedisStore.client/);
  });

  it('keeps the defaults it documents and does not touch the options object', () => {
    const options = Object.freeze({ client: suite.client });
    const store = new RedisStore(options);
    expect(store).toMatchObject({ prefix: '', clock: 'server', timeout: 1000, scripts: 'eval' });
    expect(new RedisStore({ client: suite.client, timeout: '2 s' }).timeout).toBe(2000);
  });
});
