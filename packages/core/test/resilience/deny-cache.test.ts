import { describe, expect, it } from 'vitest';
import { fixedWindow, MemoryStore, type LayerCall } from '@floodgate/core';
import { DenyCache } from '../../src/resilience/deny-cache';

const algorithm = fixedWindow({ limit: 2, window: 1000 });
const call = (key: string, cost = 1): LayerCall => ({ key, algorithm, cost });

function setup(maxKeys = 100) {
  const clock = { now: 10_000 };
  const store = new MemoryStore({ clock: () => clock.now });
  const cache = new DenyCache(maxKeys, () => clock.now);
  /** Asks the store, as the limiter would, and lets the cache learn from the answer. */
  const ask = (calls: LayerCall[]) => {
    const outcomes = store.consumeNow(calls, 'id');
    cache.remember(calls, outcomes);
    return outcomes;
  };
  return { clock, cache, ask };
}

describe('DenyCache', () => {
  it('answers a denied key until its retryAfter has passed, then lets it through', () => {
    const { clock, cache, ask } = setup();
    ask([call('a')]);
    ask([call('a')]);
    expect(cache.lookup([call('a')])).toBeUndefined();
    expect(ask([call('a')])[0]).toMatchObject({ allowed: false, retryAfter: 1000 });
    clock.now = 10_400;
    expect(cache.lookup([call('a')])).toEqual([
      expect.objectContaining({ allowed: false, retryAfter: 600, remaining: 0 }),
    ]);
    clock.now = 10_999;
    expect(cache.lookup([call('a')])?.[0]?.retryAfter).toBe(1);
    clock.now = 11_000;
    expect(cache.lookup([call('a')])).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('answers for every layer of the request, and only for a cost at least the denied one', () => {
    const { cache, ask } = setup();
    ask([call('ip', 2)]);
    expect(ask([call('ip', 2), call('user', 2)])[0]?.allowed).toBe(false);
    expect(cache.lookup([call('ip', 1)])).toBeUndefined();
    const replay = cache.lookup([call('ip', 2), call('user', 2)]);
    expect(replay?.map((outcome) => outcome.allowed)).toEqual([false, true]);
    // The user layer was not charged by the denied request: its whole quota remains.
    expect(replay?.[1]).toMatchObject({ remaining: 2, limit: 2 });
    expect(cache.lookup([call('user', 2)])).toBeUndefined();
  });

  it('is bounded: the least recently used key is forgotten first', () => {
    const { cache, ask } = setup(3);
    for (const key of ['a', 'b', 'c', 'd', 'e']) {
      ask([call(key, 2)]);
      ask([call(key, 2)]);
    }
    expect(cache.size).toBe(3);
    expect(cache.lookup([call('a', 2)])).toBeUndefined();
    expect(cache.lookup([call('e', 2)])?.[0]?.allowed).toBe(false);
  });

  it('forgets a key whose units were given back', () => {
    const { cache, ask } = setup();
    ask([call('a', 2)]);
    ask([call('a', 2)]);
    cache.forget([call('a')]);
    expect(cache.lookup([call('a', 2)])).toBeUndefined();
  });
});
