import { describe, expect, it } from 'vitest';
import {
  concurrency,
  createGate,
  fixedWindow,
  leakyBucket,
  MAX_TIMER_MS,
  MemoryStore,
  parseHttpOptions,
  WarningCode,
} from '@floodgate/core';
import type { FloodgateWarning, HttpExchange, StoreErrorEvent } from '@floodgate/core';

const T0 = Date.UTC(2026, 0, 1);

function exchange(overrides: Partial<HttpExchange<object, object>> = {}): HttpExchange<object, object> {
  return {
    req: {},
    res: {},
    ip: '203.0.113.7',
    header: () => undefined,
    trust: 'none',
    trustHint: 'trust',
    ...overrides,
  };
}

const frozen = () => T0;

function gateFor(options: Record<string, unknown>) {
  return createGate(parseHttpOptions<object, object, never>('test', { clock: frozen, ...options }));
}

/** A MemoryStore that counts refunds and lets a test wait for the n-th. */
class RefundCountingStore extends MemoryStore {
  refunds = 0;
  readonly #waiting: { count: number; resolve: () => void }[] = [];

  override async refund(...args: Parameters<MemoryStore['refund']>): Promise<void> {
    await super.refund(...args);
    this.refunds += 1;
    for (const waiter of this.#waiting.filter((w) => this.refunds >= w.count)) waiter.resolve();
  }

  refunded(count: number): Promise<void> {
    if (this.refunds >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push({ count, resolve }));
  }
}

describe('the request plan', () => {
  it('counts requests without an IP under byIp’s fallback key and says so once', async () => {
    const warnings: FloodgateWarning[] = [];
    const check = gateFor({ limit: 1, window: '1m', onWarning: (w: FloodgateWarning) => warnings.push(w) });
    expect((await check(exchange({ ip: undefined }))).action).toBe('next');
    expect((await check(exchange({ ip: undefined }))).action).toBe('deny');
    expect((await check(exchange())).action).toBe('next');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: WarningCode.undefinedIp });
    expect(warnings[0]?.message).toMatch(/fallback key \(default 'unknown'/);
  });

  it('a throwing warning sink and a throwing onStoreError never reach the request', async () => {
    const seen: StoreErrorEvent[] = [];
    const check = gateFor({
      limit: 1,
      window: '1m',
      cost: () => 'two',
      onWarning: () => {
        throw new Error('sink');
      },
      onStoreError: (event: StoreErrorEvent) => {
        seen.push(event);
        throw new Error('hook');
      },
    });
    const verdict = await check(exchange({ ip: undefined }));
    expect(verdict).toMatchObject({ action: 'next', headers: {}, info: undefined });
    expect(seen.map((event) => [(event.error as { code?: string }).code, event.operation])).toEqual([
      ['ERR_FLOODGATE_INVALID_COST', 'consume'],
    ]);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('no cost');
      },
    ],
    [
      'rejects',
      async () => {
        throw new Error('no cost');
      },
    ],
  ])('a cost() that %s follows failMode and goes to onStoreError, never to the request', async (_how, cost) => {
    const seen: StoreErrorEvent[] = [];
    const onStoreError = (event: StoreErrorEvent) => seen.push(event);
    const open = gateFor({ limit: 1, window: '1m', cost, onStoreError, prefix: 'cost-open' });
    expect(await open(exchange())).toMatchObject({ action: 'next', headers: {}, info: undefined });
    const closed = gateFor({ limit: 1, window: '1m', cost, onStoreError, failMode: 'closed', prefix: 'cost-closed' });
    expect(await closed(exchange())).toMatchObject({ action: 'deny', status: 503, headers: { 'Retry-After': '1' } });
    expect(seen.map((event) => [String(event.error), event.operation])).toEqual([
      ['Error: no cost', 'consume'],
      ['Error: no cost', 'consume'],
    ]);
  });

  it('finish releases a concurrency slot exactly once', async () => {
    const store = new MemoryStore({ clock: frozen });
    const limits = [{ name: 'slots', key: () => 'k', algorithm: concurrency({ max: 1 }) }];
    const check = gateFor({ limits, store, prefix: 'once' });
    const first = await check(exchange());
    if (first.action !== 'next') throw new Error('expected the first request to pass');
    expect((await check(exchange())).action).toBe('deny');
    first.finish(200);
    first.finish(undefined);
    await first.info?.release?.();
    expect((await check(exchange())).action).toBe('next');
    expect((await check(exchange())).action).toBe('deny');
  });

  it('a client that leaves during the shaping wait gets its unit back and leaves no timer', async () => {
    const store = new MemoryStore({ clock: frozen });
    const limits = [
      { name: 'shape', key: () => 'k', algorithm: leakyBucket({ capacity: 2, leakRate: 1, mode: 'shaping' }) },
    ];
    const check = gateFor({ limits, store, prefix: 'shape' });
    expect((await check(exchange())).action).toBe('next');
    const { process: node, setImmediate } = globalThis as unknown as {
      process: { getActiveResourcesInfo(): string[] };
      setImmediate(callback: () => void): void;
    };
    const timers = () => node.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const before = timers();
    const gone = new AbortController();
    const waiting = check(exchange({ signal: gone.signal }));
    while (timers() === before) await new Promise<void>((resolve) => setImmediate(resolve));
    gone.abort();
    expect(await waiting).toEqual({ action: 'aborted' });
    expect(timers()).toBe(before);
    const again = await check(exchange());
    expect(again.action === 'next' && again.info?.delay).toBe(1000);
  });

  it('a shaping wait longer than a timer can count is answered 429 even without maxDelay', async () => {
    // One unit leaks every 1e6 s; after 3 units the next waits 3e9 ms, past setTimeout's 2^31 - 1 ms,
    // which Node would turn into 1 ms and so let the request straight through.
    const store = new MemoryStore({ clock: frozen });
    const costs = [3, 1];
    const shaping = leakyBucket({ capacity: 4, leakRate: 0.000001, mode: 'shaping' });
    const check = gateFor({
      limits: [{ name: 'shape', key: () => 'k', algorithm: shaping }],
      store,
      cost: () => costs.shift(),
    });
    expect((await check(exchange())).action).toBe('next');
    const verdict = await check(exchange());
    expect(verdict).toMatchObject({ action: 'deny', status: 429, decision: { allowed: false, delay: 0 } });
    expect(verdict.action === 'deny' && verdict.decision.retryAfter).toBe(3_000_000_000 - MAX_TIMER_MS);
  });

  it.each([
    [
      { maxDelay: '25d' },
      /test\.maxDelay must be a whole number of milliseconds from 0 to 2147483647 \(the longest timer\), got "25d"/,
    ],
    [{ maxDelay: 1.5 }, /test\.maxDelay .*got 1\.5/],
    [{ maxDelay: -1 }, /test\.maxDelay .*got -1/],
  ])('rejects %o naming the option and the value', (options, message) => {
    expect(() => gateFor({ limit: 1, window: '1m', ...options })).toThrow(message);
  });

  it.each([
    ['skipSuccessfulRequests', { skipSuccessfulRequests: true }, [200, 302], [400, 500, undefined]],
    ['skipFailedRequests', { skipFailedRequests: true }, [400, 500, undefined], [200, 302]],
    [
      'skipSuccessfulRequests with requestWasSuccessful',
      { skipSuccessfulRequests: true, requestWasSuccessful: (req: { ok?: boolean }) => req.ok === true },
      ['ok'],
      [200, 500],
    ],
  ] as const)('%s refunds exactly the responses it names, once each', async (_name, option, refunded, kept) => {
    const store = new RefundCountingStore({ clock: frozen });
    const limits = [{ name: 'ip', key: () => 'k', algorithm: fixedWindow({ limit: 100, window: '1m' }) }];
    const check = gateFor({ limits, store, prefix: 'outcome', ...option });
    // A response that finished with `status` (undefined: the client left first); 'ok' marks the request.
    const respond = async (status: number | 'ok' | undefined) => {
      const verdict = await check(exchange({ req: { ok: status === 'ok' } }));
      if (verdict.action !== 'next') throw new Error(`expected to pass, got ${verdict.action}`);
      verdict.finish(status === 'ok' ? 200 : status);
      verdict.finish(status === 'ok' ? 200 : status);
    };
    for (const status of kept) await respond(status);
    for (const status of refunded) await respond(status);
    await store.refunded(refunded.length);
    // One more request whose refund is awaited, so a stray refund from `kept` would have landed.
    expect(store.refunds).toBe(refunded.length);
    const last = await check(exchange({ req: {} }));
    expect(last.action === 'next' && last.info?.remaining).toBe(100 - kept.length - 1);
  });

  it('a late outcome refund after the window moved on never drives the count negative', async () => {
    let now = T0;
    const clock = () => now;
    const store = new RefundCountingStore({ clock });
    const limits = [{ name: 'ip', key: () => 'k', algorithm: fixedWindow({ limit: 1, window: '1m' }) }];
    const check = createGate(
      parseHttpOptions<object, object, never>('t', { limits, store, clock, skipFailedRequests: true }),
    );
    const first = await check(exchange());
    now = T0 + 60_000;
    if (first.action === 'next') first.finish(500);
    await store.refunded(1);
    expect((await check(exchange())).action).toBe('next');
    expect((await check(exchange())).action).toBe('deny');
  });
});
