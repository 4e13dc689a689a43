import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  concurrency,
  createLimiter,
  fixedWindow,
  gcra,
  leakyBucket,
  MemoryStore,
  slidingLog,
  slidingWindow,
  tokenBucket,
} from '@floodgate/core';
import { LimiterEngine } from '../src/limiter/engine';
import { parseLimiterOptions } from '../src/limiter/options';
import { contextOf } from './keys/context';
import type { Algorithm, Decision, KeyContext, Limiter, LimitRule, RateLimitInfo } from '@floodgate/core';
import type { LayerCall, LayerOutcome, Store } from '@floodgate/core/store';

const START = Date.UTC(2030, 0, 1);
const ctx = (ip = 'a') => contextOf({ ip });
const TEN: [string, Algorithm][] = [
  ['fixedWindow', fixedWindow({ limit: 10, window: '1m' })],
  ['tokenBucket', tokenBucket({ capacity: 10, refillRate: 0.000001 })],
  ['gcra', gcra({ rate: 1, period: '1d', burst: 9 })],
  ['leakyBucket', leakyBucket({ capacity: 10, leakRate: 0.000001 })],
];

/** A real store: a MemoryStore that notes the cost of every consume and refund it is asked for. */
class CountingStore implements Store {
  readonly inner: MemoryStore;
  readonly consumed: number[] = [];
  readonly refunded: number[] = [];
  /** Set to hold back the next consume's answer (the store has already decided it). */
  hold: Promise<void> | undefined;

  constructor(clock: () => number) {
    this.inner = new MemoryStore({ clock });
  }

  async consume(calls: readonly LayerCall[], id: string): Promise<LayerOutcome[]> {
    this.consumed.push(...calls.map((call) => call.cost));
    const outcomes = await this.inner.consume(calls, id);
    const hold = this.hold;
    this.hold = undefined;
    if (hold !== undefined) await hold;
    return outcomes;
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

function setup(algorithm: Algorithm, lease: LimitRule['lease'] = { size: 4, ttl: '10s' }, extra: LimitRule[] = []) {
  const time = { now: START };
  const clock = () => time.now;
  const store = new CountingStore(clock);
  const rule = (withLease: boolean): LimitRule => ({
    name: 'hot',
    key: () => 'hot',
    algorithm,
    ...(withLease ? { lease } : {}),
  });
  const limiter = createLimiter({ store, clock, limits: [rule(true), ...extra] });
  // The same key without a lease: reads and charges the store directly.
  const plain = createLimiter({ store, clock, limits: [rule(false)] });
  // A peek of cost 0: what is left in the store itself, no pool counted.
  const storeRemaining = async () => (await plain.peek(ctx(), { cost: 0 })).remaining;
  const admit = (n: number, ip = 'a') => consumeMany(limiter, n, ip);
  return { time, store, limiter, plain, storeRemaining, admit };
}

/** Sends `n` requests one after another; each decision is what a handler reads, refund(n) included. */
async function consumeMany(limiter: Limiter, n: number, ip = 'a'): Promise<RateLimitInfo[]> {
  const decisions: RateLimitInfo[] = [];
  for (let i = 0; i < n; i++) decisions.push((await limiter.consume(ctx(ip))) as RateLimitInfo);
  return decisions;
}

const allowedOf = (decisions: Decision[]) => decisions.filter((d) => d.allowed).length;

describe('lease options', () => {
  const limit10 = fixedWindow({ limit: 10, window: '1m' });
  const build = (lease: unknown, algorithm: unknown) => () =>
    createLimiter({ limits: [{ name: 'hot', key: () => 'k', algorithm, lease } as LimitRule] });
  it.each([
    ['size below 2', { size: 1, ttl: 1000 }, limit10, /limits\[0\]\.lease\.size must be an integer >= 2, got 1/],
    ['size not an integer', { size: 2.5, ttl: 1000 }, limit10, /lease\.size must be an integer >= 2, got 2\.5/],
    ['size above the limit', { size: 11, ttl: 1000 }, limit10, /lease\.size must be at most the limit \(10\), got 11/],
    ['ttl of 0', { size: 2, ttl: 0 }, limit10, /limits\[0\]\.lease\.ttl must be a whole number of milliseconds/],
    ['ttl not a duration', { size: 2, ttl: 'soon' }, limit10, /lease\.ttl/],
    ['ttl missing', { size: 2 }, limit10, /lease\.ttl/],
    ['an unknown key', { size: 2, ttl: 1000, count: 3 }, limit10, /lease.*count/],
    ['not an object', 4, limit10, /limits\[0\]\.lease/],
    ['slidingWindow', { size: 2, ttl: 1000 }, slidingWindow({ limit: 10, window: 1000 }), /got slidingWindow/],
    ['slidingLog', { size: 2, ttl: 1000 }, slidingLog({ limit: 10, window: 1000 }), /got slidingLog/],
    ['concurrency', { size: 2, ttl: 1000 }, concurrency({ max: 10, lease: 1000 }), /got concurrency/],
    [
      'leakyBucket shaping',
      { size: 2, ttl: 1000 },
      leakyBucket({ capacity: 10, leakRate: 1, mode: 'shaping' }),
      /lease works with fixedWindow, tokenBucket, gcra and leakyBucket \(policing\), got leakyBucket \(shaping\)/,
    ],
    ['a function algorithm', { size: 2, ttl: 1000 }, () => limit10, /limits\[0\]\.lease needs a fixed algorithm/],
  ])('%s is refused with a message naming the option', (_name, lease, algorithm, message) => {
    expect(build(lease, algorithm)).toThrow(message);
    expect(build(lease, algorithm)).toThrow(expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION' }));
  });

  it.each(TEN)('%s takes a lease as large as its limit', (_name, algorithm) => {
    expect(build({ size: 10, ttl: '1s' }, algorithm)).not.toThrow();
  });
});

describe('leasing on one instance', () => {
  it('takes the store once per `size` requests and reports the exact remaining', async () => {
    const { store, admit } = setup(fixedWindow({ limit: 100, window: '1m' }), { size: 10, ttl: '10s' });
    const decisions = await admit(100);
    expect(decisions.map((d) => d.remaining)).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
    expect(new Set(decisions.map((d) => d.resetAt))).toEqual(new Set([START + 60_000]));
    expect(store.consumed).toEqual(Array(10).fill(10));
  });

  it.each(TEN)('%s admits exactly its limit, the tail one request at a time', async (_name, algorithm) => {
    const leased = setup(algorithm);
    const numbers = (d: Decision) => ({ allowed: d.allowed, remaining: d.remaining, retryAfter: d.retryAfter });
    const got = await leased.admit(13);
    expect(allowedOf(got)).toBe(10);
    // The same trace on a store of its own, without a lease.
    const expected = await consumeMany(setup(algorithm).plain, 13);
    expect(got.map(numbers)).toEqual(expected.map(numbers));
    // Two leases of 4, one refused, then the last two units one by one.
    expect(leased.store.consumed.slice(0, 5)).toEqual([4, 4, 4, 1, 1]);
  });

  it('puts the units back when another layer denies the request', async () => {
    const perIp: LimitRule = { name: 'ip', key: (c) => c.ip, algorithm: fixedWindow({ limit: 1, window: '1m' }) };
    const { store, admit } = setup(fixedWindow({ limit: 10, window: '1m' }), undefined, [perIp]);
    const repeated = await admit(3, 'a');
    expect(repeated.map((d) => [d.allowed, d.rule])).toEqual([
      [true, 'ip'],
      [false, 'ip'],
      [false, 'ip'],
    ]);
    const others: Decision[] = [];
    for (let i = 0; i < 12; i++) others.push(...(await admit(1, `10.0.0.${i}`)));
    expect(allowedOf(others)).toBe(9);
    expect(others[9]).toMatchObject({ allowed: false, rule: 'hot' });
    expect(store.refunded).toEqual([]);
  });

  it('decision.refund and limiter.refund put the units back into the pool', async () => {
    const { store, limiter, admit, storeRemaining } = setup(fixedWindow({ limit: 10, window: '1m' }));
    const [first] = await admit(1);
    await first?.refund();
    const b = ctx('b');
    const second = await limiter.consume(b);
    await limiter.refund(b);
    expect(second.remaining).toBe(9);
    expect(await storeRemaining()).toBe(6);
    expect(store.refunded).toEqual([]);
    expect(allowedOf(await admit(12))).toBe(10);
  });

  it('close() gives the unused units back: another limiter on the store can spend them', async () => {
    const { limiter, plain, admit, storeRemaining } = setup(fixedWindow({ limit: 10, window: '1m' }));
    await admit(1);
    expect(await storeRemaining()).toBe(6);
    await limiter.close();
    expect(await storeRemaining()).toBe(9);
    const rest: Decision[] = [];
    for (let i = 0; i < 10; i++) rest.push(await plain.consume(ctx()));
    expect(allowedOf(rest)).toBe(9);
  });

  it('a lease past its ttl gives its units back at the next request; a late refund goes to the store', async () => {
    const { time, store, admit, storeRemaining } = setup(tokenBucket({ capacity: 10, refillRate: 0.000001 }));
    const [first] = await admit(1);
    time.now += 10_000;
    expect(await storeRemaining()).toBe(6);
    const [second] = await admit(1);
    expect(store.refunded).toEqual([3]);
    expect(await storeRemaining()).toBe(5);
    expect(second?.remaining).toBe(8);
    await first?.refund();
    expect(store.refunded).toEqual([3, 1]);
    expect(await storeRemaining()).toBe(6);
  });

  it('fixedWindow: units taken in one window are neither used nor given back in the next', async () => {
    const { time, store, admit, storeRemaining } = setup(fixedWindow({ limit: 10, window: '1m' }), {
      size: 4,
      ttl: '1h',
    });
    time.now = START + 59_999;
    const [old] = await admit(1);
    time.now = START + 60_000;
    expect(allowedOf(await admit(15))).toBe(10);
    await old?.refund();
    expect(store.refunded).toEqual([]);
    expect(await storeRemaining()).toBe(0);
  });

  it('reset drops the pool: the next request takes a new lease on the fresh key', async () => {
    const { store, limiter, admit, storeRemaining } = setup(fixedWindow({ limit: 10, window: '1m' }));
    await admit(2);
    // The hot key is shared by every client: a control reaches it only when the rule is named.
    await limiter.reset(ctx(), { rule: 'hot' });
    const [after] = await admit(1);
    expect(store.consumed).toEqual([4, 4]);
    expect(after?.remaining).toBe(9);
    expect(await storeRemaining()).toBe(6);
    expect(allowedOf(await admit(12))).toBe(9);
  });

  it('block drops the pool: the next request is denied by the store', async () => {
    const { time, limiter, admit } = setup(fixedWindow({ limit: 10, window: '1m' }));
    await admit(1);
    await limiter.block(ctx(), 1000, { rule: 'hot' });
    expect((await admit(1))[0]).toMatchObject({ allowed: false, retryAfter: 1000 });
    time.now += 1000;
    expect((await admit(1))[0]?.allowed).toBe(true);
  });

  it('a request served from the pool costs no store call and no promise', async () => {
    const store = new CountingStore(() => START);
    const algorithm = fixedWindow({ limit: 10, window: '1m' });
    const limits: LimitRule[] = [{ name: 'hot', key: () => 'hot', algorithm, lease: { size: 4, ttl: '10s' } }];
    const engine = new LimiterEngine(parseLimiterOptions({ store, clock: () => START, limits }));
    expect(await engine.decide(ctx(), 1)).toMatchObject({ allowed: true, remaining: 9 });
    const served = engine.decide(ctx(), 1);
    expect(served).not.toHaveProperty('then');
    expect(served).toMatchObject({ allowed: true, remaining: 8 });
    expect(store.consumed).toEqual([4]);
  });

  it('a request costing more than the lease goes to the store alone', async () => {
    const { store, limiter } = setup(fixedWindow({ limit: 10, window: '1m' }));
    expect((await limiter.consume(ctx(), { cost: 5 })).remaining).toBe(5);
    expect((await limiter.consume(ctx(), { cost: 2 })).remaining).toBe(3);
    expect(store.consumed).toEqual([5, 4]);
  });

  it('an evicted pool gives its units back (10,000 pools at most)', async () => {
    const clock = () => START;
    const store = new CountingStore(clock);
    const algorithm = fixedWindow({ limit: 10, window: '1m' });
    const rule = { name: 'hot', key: (c: KeyContext) => c.ip, algorithm };
    const limiter = createLimiter({ store, clock, limits: [{ ...rule, lease: { size: 4, ttl: '10s' } }] });
    for (let i = 0; i <= 10_000; i++) await limiter.consume(ctx(`k${i}`));
    expect(store.refunded).toEqual([3]);
    const plain = createLimiter({ store, clock, limits: [rule] });
    expect((await plain.peek(ctx('k0'), { cost: 0 })).remaining).toBe(9);
  });

  it('with the store unreachable no lease is taken: requests degrade as they would without one', async () => {
    const failing: Store = {
      consume: () => Promise.reject(new Error('down')),
      refund: () => Promise.reject(new Error('down')),
    };
    const degradedRun = (lease: LimitRule['lease']) => {
      const algorithm = fixedWindow({ limit: 10, window: '1m' });
      const limits = [{ name: 'hot', key: () => 'hot', algorithm, ...(lease ? { lease } : {}) }];
      return consumeMany(createLimiter({ store: failing, clock: () => START, onStoreError: () => {}, limits }), 12);
    };
    const leased = await degradedRun({ size: 4, ttl: 1000 });
    const unleased = await degradedRun(undefined);
    expect(leased.every((d) => d.degraded)).toBe(true);
    expect(allowedOf(unleased)).toBe(10);
    expect(leased.map((d) => [d.allowed, d.remaining])).toEqual(unleased.map((d) => [d.allowed, d.remaining]));
  });
});

describe('leases and refill', () => {
  it.each([
    ['tokenBucket', tokenBucket({ capacity: 10, refillRate: 10 })],
    ['gcra', gcra({ rate: 10, period: '1s', burst: 9 })],
  ])('%s: tokens leased before the bucket refilled do not add to its burst', async (_name, algorithm) => {
    const { time, admit } = setup(algorithm);
    await admit(1);
    time.now += 1000;
    expect(allowedOf(await admit(20))).toBe(10);
  });
});

describe('leases and in-flight fills', () => {
  /** Starts a request whose lease the store has taken but not yet answered; `open()` lets the answer through. */
  function heldFill(algorithm: Algorithm) {
    const setupped = setup(algorithm);
    let open = () => {};
    setupped.store.hold = new Promise((resolve) => {
      open = resolve;
    });
    const pending = setupped.limiter.consume(ctx());
    return { ...setupped, pending, open };
  }

  it('close() during a fill still gives the unused units back', async () => {
    const { limiter, pending, open, storeRemaining } = heldFill(fixedWindow({ limit: 10, window: '1m' }));
    const closing = limiter.close();
    open();
    const admitted = allowedOf([await pending]);
    await closing;
    expect(await storeRemaining()).toBe(10 - admitted);
  });

  it('block during a fill: once the block ends, the window still admits its limit', async () => {
    const { time, limiter, pending, open, admit } = heldFill(fixedWindow({ limit: 10, window: '1m' }));
    const blocking = limiter.block(ctx(), 1000, { rule: 'hot' });
    open();
    await blocking;
    const before = allowedOf([await pending]);
    time.now += 1000;
    expect(before + allowedOf(await admit(15))).toBe(10);
  });
});

describe('leases and the deadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    ['without a lease', undefined],
    ['with a lease', { size: 4, ttl: 1000 }],
  ])('%s, a store that hangs keeps a request waiting one deadline, not two', async (_name, lease) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const hanging: Store = { consume: () => new Promise(() => {}), refund: async () => {} };
    const algorithm = fixedWindow({ limit: 10, window: '1m' });
    const limiter = createLimiter({
      store: hanging,
      clock: () => START,
      timeout: 100,
      onStoreError: () => {},
      limits: [{ name: 'hot', key: () => 'hot', algorithm, ...(lease ? { lease } : {}) }],
    });
    let settled: Decision | undefined;
    void limiter.consume(ctx()).then((decision) => {
      settled = decision;
    });
    await vi.advanceTimersByTimeAsync(150);
    expect(settled).toMatchObject({ allowed: true, degraded: true });
  });
});
