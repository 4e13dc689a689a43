import { describe, expect, it } from 'vitest';
import { fixedWindow, gcra, MemoryStore } from '@floodgate/core';
import type { LayerCall } from '@floodgate/core/store';
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
  it('keeps no denial a smaller request could still pass (issue 9, item 11)', () => {
    const { cache, ask } = setup();
    ask([call('a', 1)]);
    // One unit is left: a cost of 2 is denied, but a cost of 1 would pass and change what the
    // store would answer; the denial is not kept.
    expect(ask([call('a', 2)])[0]).toMatchObject({ allowed: false, remaining: 1 });
    expect(cache.lookup([call('a', 2)])).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('for a draining algorithm, keeps only a denial of cost 1 and answers only cost 1', () => {
    const clock = { now: 10_000 };
    const store = new MemoryStore({ clock: () => clock.now });
    const cache = new DenyCache(100, () => clock.now);
    const bucket = gcra({ rate: 10, period: '1s', burst: 1 });
    const ask = (cost: number) => {
      const calls = [{ key: 'k', algorithm: bucket, cost }];
      const outcomes = store.consumeNow(calls, 'id');
      cache.remember(calls, outcomes);
      return outcomes[0];
    };
    ask(2);
    expect(ask(2)).toMatchObject({ allowed: false });
    expect(cache.size).toBe(0);
    expect(ask(1)).toMatchObject({ allowed: false, retryAfter: 100 });
    const calls = (cost: number) => [{ key: 'k', algorithm: bucket, cost }];
    expect(cache.lookup(calls(1))?.[0]).toMatchObject({ allowed: false, retryAfter: 100 });
    // A cost of 2 waits longer than the cached cost-1 denial says: it goes to the store.
    expect(cache.lookup(calls(2))).toBeUndefined();
    clock.now += 40;
    expect(cache.lookup(calls(1))?.[0]).toMatchObject({ retryAfter: 60 });
  });

  it('forgets a key this instance charged', () => {
    const { cache, ask } = setup();
    ask([call('a', 2)]);
    ask([call('a', 2)]);
    expect(cache.lookup([call('a')])).toBeDefined();
    cache.remember([call('a')], [{ allowed: true, limit: 2, remaining: 1, resetAt: 0, retryAfter: 0, delay: 0 }]);
    expect(cache.lookup([call('a')])).toBeUndefined();
  });

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

  it('answers for every layer of the request, and for any cost of a full fixed window', () => {
    const { cache, ask } = setup();
    ask([call('ip', 2)]);
    expect(ask([call('ip', 2), call('user', 2)])[0]?.allowed).toBe(false);
    // Nothing is left in the window: a request of any cost >= 1 waits until it ends.
    expect(cache.lookup([call('ip', 1)])?.[0]).toMatchObject({ allowed: false, retryAfter: 1000 });
    expect(cache.lookup([call('ip', 0)])).toBeUndefined();
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
