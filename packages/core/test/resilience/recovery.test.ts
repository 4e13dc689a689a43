import { describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow, type Store } from '@floodgate/core';
import { contextOf } from '../keys/context';

/**
 * Issue 19, item 14: after a short outage the limiter went back to its store only once a whole
 * cooldown had passed (30 s with the defaults: with Redis killed for 10 s, decisions came back to
 * Redis 20 s after it was reachable). With the default breaker settings and an injected clock: a
 * store that reports its reconnect is used again at the next request, one that cannot report it at
 * the end of the current back-off, and neither is hammered with probes while it is away.
 */

const limits = [{ name: 'ip', key: () => 'x', algorithm: fixedWindow({ limit: 1_000_000, window: 1000 }) }];

/** A store that fails while `down`, and counts its client's ready connections when `withReady`. */
function flakyStore(withReady: boolean) {
  const state = { down: false, ready: 1, calls: 0 };
  const outcome = { allowed: true, limit: 1_000_000, remaining: 1, resetAt: 0, retryAfter: 0, delay: 0 };
  const store: Store = {
    consume: async (calls) => {
      state.calls += 1;
      if (state.down) throw new Error('connection is closed');
      return calls.map(() => outcome);
    },
    refund: async () => {},
  };
  if (withReady) {
    Object.defineProperty(store, 'readyCount', { get: () => state.ready });
  }
  return { store, state };
}

/**
 * Requests every 100 ms from t = 0 until `until`; the store goes down at 1 s and is reachable
 * again at `backAt`, and its client can use it `reconnectDelay` later, when it is ready again (a
 * call before that fails: no offline queue). Answers how long after `backAt` decisions came from
 * the store again, and how often the store was called while it was away.
 */
async function outage(options: { withReady: boolean; backAt: number; reconnectDelay?: number; until: number }) {
  const { store, state } = flakyStore(options.withReady);
  let now = 0;
  const changes: string[] = [];
  const limiter = createLimiter({
    limits,
    store,
    clock: () => now,
    denyCache: false,
    onStoreError: () => {},
    onBreakerChange: ({ to }) => changes.push(`${to}@${now}`),
  });
  const ctx = contextOf({ ip: '203.0.113.7' });
  let callsWhileDown = 0;
  let backInStore: number | undefined;
  for (now = 0; now <= options.until; now += 100) {
    const usableAt = options.backAt + (options.reconnectDelay ?? 0);
    state.down = now >= 1000 && now < usableAt;
    if (now === usableAt) state.ready += 1;
    const before = state.calls;
    const decision = await limiter.consume(ctx);
    if (state.down) callsWhileDown += state.calls - before;
    if (now >= options.backAt && !decision.degraded && backInStore === undefined) backInStore = now;
  }
  return { recoveredAfter: (backInStore ?? Number.POSITIVE_INFINITY) - options.backAt, callsWhileDown, changes };
}

describe('recovery after an outage, default breaker settings (issue 19, item 14)', () => {
  it('a 10 s outage: back in the store within 2 s of the store being reachable, at the first request after the reconnect', async () => {
    // The client reconnects 1 s after Redis is back (the README's retryStrategy caps its delay at 1 s).
    const run = await outage({ withReady: true, backAt: 11_000, reconnectDelay: 1000, until: 20_000 });
    expect(run.recoveredAfter).toBeLessThanOrEqual(2000);
    expect(run.recoveredAfter).toBe(1000);
    expect(run.changes.at(-1)).toBe('closed@12000');
  });

  it('a 5 minute outage: the same, and one probe per cooldown at most while it lasts (no probe storm)', async () => {
    const run = await outage({ withReady: true, backAt: 301_000, reconnectDelay: 0, until: 305_000 });
    expect(run.recoveredAfter).toBe(0);
    // 5 failures open the breaker; then waits of 1, 2, 4, 8, 16 s and 30 s after that (each at least
    // half of it): over 300 s, at most 5 + 5 + 300 / 15 probes.
    expect(run.callsWhileDown).toBeLessThanOrEqual(30);
  });

  it('a store that cannot report its reconnect (a frozen server) is found by the next probe of the back-off', async () => {
    // Opened at 1 s, waits of at most 1, 2, 4, 8, 16 s: a probe lands before the store has been back 16 s;
    // before, the first probe came a whole cooldown (30 s) after the breaker opened.
    const run = await outage({ withReady: false, backAt: 11_000, until: 60_000 });
    expect(run.recoveredAfter).toBeLessThanOrEqual(16_000);
    const short = await outage({ withReady: false, backAt: 2000, until: 10_000 });
    expect(short.recoveredAfter).toBeLessThanOrEqual(2000);
  });
});
