import { describe, expect, it } from 'vitest';
import { DurableObjectStore } from '../src/index';
import type { Store } from '@floodgate/core';
import type { LimiterNamespace } from '../src/index';

// Never called: these tests only construct stores. The calls run against workerd in test/edge.
const namespace: LimiterNamespace = {
  idFromName: (name) => name,
  get: () => ({ fetch: async () => new Response(null, { status: 500 }) }),
};

describe('DurableObjectStore options', () => {
  it.each([
    ['no options', undefined, /DurableObjectStore: options must be an object/],
    ['an unknown option', { namespace, prefix: 'x' }, /unknown option "prefix"/],
    ['no namespace', {}, /DurableObjectStore.namespace must be a Durable Object namespace binding/],
    ['a namespace name instead of the binding', { namespace: 'FLOODGATE' }, /DurableObjectStore.namespace/],
    ['shards 0', { namespace, shards: 0 }, /DurableObjectStore.shards must be an integer >= 1, got 0/],
    ['fractional shards', { namespace, shards: 1.5 }, /DurableObjectStore.shards .* got 1.5/],
    ['NaN shards', { namespace, shards: Number.NaN }, /DurableObjectStore.shards .* got NaN/],
    ['shards as a string', { namespace, shards: '4' }, /DurableObjectStore.shards .* got "4"/],
    ['onWarning that is not a function', { namespace, onWarning: 'log' }, /DurableObjectStore.onWarning .*"log"/],
  ])('rejects %s, naming the option and the value, with a stable code', (_, options, message) => {
    const make = () => new DurableObjectStore(options as never);
    expect(make).toThrow(message);
    expect(make).toThrow(expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION' }));
  });

  it('is a remote store (not local: the limiter guards it) and reads the options object without changing it', () => {
    const options = Object.freeze({ namespace, shards: 4 });
    const store: Store = new DurableObjectStore(options);
    expect(store.local).toBeUndefined();
    expect(new DurableObjectStore({ namespace }).shards).toBeUndefined();
    expect((store as DurableObjectStore).shards).toBe(4);
  });

  it('one breaker for objects per identity, one per shard with shards', () => {
    const key = (id: string) => `fg:ip:sl.1:{${id}}`;
    const perIdentity = new DurableObjectStore({ namespace });
    expect(perIdentity.partitionOf(key('203.0.113.7'))).toBe('');
    const sharded = new DurableObjectStore({ namespace, shards: 4 });
    expect(sharded.partitionOf(key('203.0.113.7'))).toMatch(/^shard:[0-3]\/4$/);
    expect(sharded.partitionOf(`fg:user:tb.2:{203.0.113.7}`)).toBe(sharded.partitionOf(key('203.0.113.7')));
  });
});
