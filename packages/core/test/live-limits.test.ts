import { describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow, limitsPublisher, MemoryStore, slidingLog } from '@floodgate/core';
import { contextOf } from './keys/context';
import type { LayerCall, LayerOutcome, Store } from '@floodgate/core/store';

/**
 * Limits reloaded through a feed, as the engine's collaborators see them: each request is decided
 * by the one rule set it started with, and what a new set needs (leasing, request ids) is in place
 * before its first request.
 */

const START = Date.UTC(2030, 0, 1);
const ctx = contextOf({ ip: '203.0.113.7' });

/** A real MemoryStore that notes what it is asked: each consume's costs and request id, each refund's costs. */
class RecordingStore implements Store {
  readonly inner: MemoryStore;
  readonly consumed: number[] = [];
  readonly ids: string[] = [];
  readonly refunded: number[] = [];

  constructor() {
    this.inner = new MemoryStore({ clock: () => START });
  }

  consume(calls: readonly LayerCall[], id: string): Promise<LayerOutcome[]> {
    this.consumed.push(...calls.map((call) => call.cost));
    this.ids.push(id);
    return this.inner.consume(calls, id);
  }
  refund(calls: readonly LayerCall[], id: string): Promise<void> {
    this.refunded.push(...calls.map((call) => call.cost));
    return this.inner.refund(calls, id);
  }
  peek = (calls: readonly LayerCall[], id: string) => this.inner.peek(calls, id);
  reset = (calls: readonly LayerCall[]) => this.inner.reset(calls);
  block = (calls: readonly LayerCall[], duration: number) => this.inner.block(calls, duration);
  unblock = (calls: readonly LayerCall[]) => this.inner.unblock(calls);
}

const perMinute = (limit: number) => fixedWindow({ limit, window: '1m' });

describe('limits reloaded from a feed', () => {
  it('a reload that brings the first leased rule starts leasing: one store call fills the pool, close() gives the rest back', async () => {
    const store = new RecordingStore();
    const feed = limitsPublisher([{ name: 'api', key: () => 'k', algorithm: perMinute(100) }]);
    const limiter = createLimiter({ limits: feed, store, clock: () => START });
    await limiter.consume(ctx);
    expect(store.consumed).toEqual([1]);

    feed.publish([{ name: 'api', key: () => 'k', algorithm: perMinute(100), lease: { size: 4, ttl: '10s' } }]);
    for (let i = 0; i < 3; i++) expect((await limiter.consume(ctx)).allowed).toBe(true);
    // Three requests, one store call: the lease of 4 units, three of them handed out locally.
    expect(store.consumed).toEqual([1, 4]);
    await limiter.close();
    expect(store.refunded).toEqual([1]);
  });

  it('a reload that brings a sliding log gives each request its own id, so no two entries collide', async () => {
    const store = new RecordingStore();
    const feed = limitsPublisher([{ name: 'api', key: () => 'k', algorithm: perMinute(100) }]);
    const limiter = createLimiter({ limits: feed, store, clock: () => START });
    await limiter.consume(ctx);
    // A fixed window stores no entry per request: it needs no id.
    expect(store.ids).toEqual(['']);

    feed.publish([{ name: 'api', key: () => 'k', algorithm: slidingLog({ limit: 3, window: '1m' }) }]);
    const allowed = [];
    for (let i = 0; i < 5; i++) allowed.push((await limiter.consume(ctx)).allowed);
    expect(allowed).toEqual([true, true, true, false, false]);
    const ids = store.ids.slice(1);
    // At least the three admitted requests reached the store (a repeated denial may be answered locally).
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(ids.every((id) => id !== '')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a request whose key is still pending when the rules change is decided by the rules it started with', async () => {
    let settle: (key: string) => void = () => {};
    const pending = new Promise<string>((resolve) => {
      settle = resolve;
    });
    const feed = limitsPublisher([{ name: 'before', key: () => pending, algorithm: perMinute(1) }]);
    const limiter = createLimiter({ limits: feed, clock: () => START, timeout: 60_000 });
    const started = limiter.consume(ctx);
    feed.publish([{ name: 'after', key: () => 'k', algorithm: perMinute(1) }]);
    settle('k');
    const decision = await started;
    expect(decision.results.map((layer) => layer.rule)).toEqual(['before']);
    expect((await limiter.consume(ctx)).results.map((layer) => layer.rule)).toEqual(['after']);
  });

  it('close() stops following the feed: later updates are not applied', async () => {
    const feed = limitsPublisher([{ name: 'api', key: () => 'k', algorithm: perMinute(1) }]);
    const limiter = createLimiter({ limits: feed, clock: () => START });
    await limiter.close();
    feed.publish([{ name: 'api', key: () => 'k', algorithm: perMinute(5) }]);
    const decisions = [await limiter.consume(ctx), await limiter.consume(ctx)];
    expect(decisions.map((decision) => [decision.allowed, decision.limit])).toEqual([
      [true, 1],
      [false, 1],
    ]);
  });
});
