import { describe, expect, it } from 'vitest';
import { concurrency, fixedWindow, leakyBucket, MemoryStore, WarningCode } from '@floodgate/core';
import { MAX_TIMER_MS } from '@floodgate/core/store';
import {
  ABORTED,
  Denial,
  Gate,
  isThenable,
  type LimiterDecision,
  negotiateProblem,
  parseHttpOptions,
} from '@floodgate/core/http';
import type { FloodgateWarning, StoreErrorEvent } from '@floodgate/core';
import type { GateResult, HttpDriver } from '@floodgate/core/http';

const T0 = Date.UTC(2026, 0, 1);

interface FakeRequest {
  ip?: string | undefined;
  headers?: Record<string, string>;
  ok?: boolean;
}

interface FakeResponse {
  headers: Record<string, string>;
  signal?: AbortSignal;
}

const driver: HttpDriver<FakeRequest, FakeResponse> = {
  header: (req, name) => req.headers?.[name],
  ip: (req) => req.ip,
  setHeader(res, name, value) {
    res.headers[name] = value;
  },
  trust: () => 'none',
  trustHint: 'trust',
  abortSignal: (_req, res) => res.signal,
};

/** What the adapter would do with the gate's answer, as a plain object to assert on. */
type Verdict =
  | {
      action: 'next';
      headers: Record<string, string>;
      info: LimiterDecision | undefined;
      finish(status?: number): void;
    }
  | {
      action: 'deny';
      status: number;
      headers: Record<string, string>;
      decision: Denial['decision'];
      body: Denial['body'];
    }
  | { action: 'aborted' };

function verdictOf(
  gate: Gate<FakeRequest, FakeResponse>,
  req: FakeRequest,
  res: FakeResponse,
  result: GateResult,
): Verdict {
  if (result === ABORTED) return { action: 'aborted' };
  if (result instanceof Denial) {
    return {
      action: 'deny',
      status: result.status,
      headers: res.headers,
      decision: result.decision,
      body: result.body,
    };
  }
  const finish = (status?: number) => {
    if (result !== undefined) gate.finish(result, req, res, status);
  };
  return { action: 'next', headers: res.headers, info: result, finish };
}

interface Exchange {
  req?: FakeRequest;
  signal?: AbortSignal;
}

const frozen = () => T0;

function gateFor(options: Record<string, unknown>) {
  const gate = new Gate(
    parseHttpOptions<FakeRequest, FakeResponse, never>('test', { clock: frozen, ...options }),
    driver,
  );
  return async (exchange: Exchange = {}): Promise<Verdict> => {
    const req = exchange.req ?? { ip: '203.0.113.7' };
    const res: FakeResponse =
      exchange.signal === undefined ? { headers: {} } : { headers: {}, signal: exchange.signal };
    const result = gate.check(req, res);
    return verdictOf(gate, req, res, isThenable(result) ? await result : result);
  };
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
    expect((await check({ req: { ip: undefined } })).action).toBe('next');
    expect((await check({ req: { ip: undefined } })).action).toBe('deny');
    expect((await check()).action).toBe('next');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: WarningCode.undefinedIp });
    expect(warnings[0]?.message).toMatch(/fallback key \(default 'unknown'/);
  });

  it('a throwing warning sink and a throwing onStoreError never reach the request', async () => {
    const seen: StoreErrorEvent[] = [];
    const broken = {
      local: true,
      consume: () => {
        throw new Error('broken store');
      },
      refund: async () => {},
    };
    const check = gateFor({
      limit: 1,
      window: '1m',
      store: broken,
      onWarning: () => {
        throw new Error('sink');
      },
      onStoreError: (event: StoreErrorEvent) => {
        seen.push(event);
        throw new Error('hook');
      },
    });
    expect(await check({ req: { ip: undefined } })).toMatchObject({ action: 'next', headers: {}, info: undefined });
    expect(seen.map((event) => [String(event.error), event.operation])).toEqual([['Error: broken store', 'consume']]);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('no cost');
      },
      /threw no cost/,
    ],
    [
      'rejects',
      async () => {
        throw new Error('no cost');
      },
      /threw no cost/,
    ],
    ['returns NaN', () => Number.NaN, /returned NaN/],
    ['returns -1', () => -1, /returned -1/],
    ['returns 1.5', () => 1.5, /returned 1.5/],
    ['returns Infinity', () => Number.POSITIVE_INFINITY, /returned Infinity/],
    ["returns ''", () => '', /returned ""/],
    ['returns a value above what the layer can ever grant', () => 4, /cost 4 exceeds what rule "ip"/],
  ])(
    'a cost() that %s is refused whatever the failMode, without Retry-After, reported once',
    async (_how, cost, reason) => {
      for (const failMode of ['local', 'open', 'closed'] as const) {
        const seen: StoreErrorEvent[] = [];
        const warnings: FloodgateWarning[] = [];
        const check = gateFor({
          limit: 3,
          window: '1m',
          cost,
          failMode,
          onStoreError: (event: StoreErrorEvent) => seen.push(event),
          onWarning: (warning: FloodgateWarning) => warnings.push(warning),
          prefix: `cost-${failMode}`,
        });
        for (let i = 0; i < 3; i++) {
          const verdict = await check();
          expect(verdict).toMatchObject({ action: 'deny', status: 429, decision: { allowed: false, retryAfter: 0 } });
          expect(verdict.action === 'deny' && verdict.headers).toEqual({});
          expect(verdict.action === 'deny' && verdict.body?.text).toMatch(/Retrying it will not help/);
        }
        expect(seen).toEqual([]);
        expect(warnings.map((warning) => warning.code)).toEqual([WarningCode.invalidCost]);
        expect(warnings[0]?.message).toMatch(reason);
      }
    },
  );

  it('a problem details denial sends what negotiateProblem answers, and keeps the object its JSON is made from', async () => {
    const check = gateFor({ limit: 1, window: '1m' });
    expect((await check()).action).toBe('next');
    for (const accept of [undefined, 'application/json', 'text/html']) {
      const verdict = await check({ req: { ip: '203.0.113.7', headers: accept === undefined ? {} : { accept } } });
      if (verdict.action !== 'deny') throw new Error(`expected a denial, got ${verdict.action}`);
      const expected = negotiateProblem(accept, verdict.decision);
      expect(verdict.body?.contentType).toBe(expected.contentType);
      expect(verdict.body?.text).toBe(expected.body);
      // Nest's exception filter writes the JSON itself, from the object.
      if (accept === 'text/html') expect(verdict.body?.json).toBeUndefined();
      else expect(JSON.stringify(verdict.body?.json)).toBe(expected.body);
    }
  });

  it('finish releases a concurrency slot exactly once', async () => {
    const store = new MemoryStore({ clock: frozen });
    const limits = [{ name: 'slots', key: () => 'k', algorithm: concurrency({ max: 1 }) }];
    const check = gateFor({ limits, store, prefix: 'once' });
    const first = await check();
    if (first.action !== 'next') throw new Error('expected the first request to pass');
    expect((await check()).action).toBe('deny');
    first.finish(200);
    first.finish(undefined);
    await first.info?.release?.();
    expect((await check()).action).toBe('next');
    expect((await check()).action).toBe('deny');
  });

  it('a client that leaves during the shaping wait gets its unit back and leaves no timer', async () => {
    const store = new MemoryStore({ clock: frozen });
    const limits = [
      { name: 'shape', key: () => 'k', algorithm: leakyBucket({ capacity: 2, leakRate: 1, mode: 'shaping' }) },
    ];
    const check = gateFor({ limits, store, prefix: 'shape' });
    expect((await check()).action).toBe('next');
    const { process: node, setImmediate } = globalThis as unknown as {
      process: { getActiveResourcesInfo(): string[] };
      setImmediate(callback: () => void): void;
    };
    const timers = () => node.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const before = timers();
    const gone = new AbortController();
    const waiting = check({ signal: gone.signal });
    while (timers() === before) await new Promise<void>((resolve) => setImmediate(resolve));
    gone.abort();
    expect(await waiting).toEqual({ action: 'aborted' });
    expect(timers()).toBe(before);
    const again = await check();
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
    expect((await check()).action).toBe('next');
    const verdict = await check();
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
      const verdict = await check({ req: { ip: '203.0.113.7', ok: status === 'ok' } });
      if (verdict.action !== 'next') throw new Error(`expected to pass, got ${verdict.action}`);
      verdict.finish(status === 'ok' ? 200 : status);
      verdict.finish(status === 'ok' ? 200 : status);
    };
    for (const status of kept) await respond(status);
    for (const status of refunded) await respond(status);
    await store.refunded(refunded.length);
    // One more request whose refund is awaited, so a stray refund from `kept` would have landed.
    expect(store.refunds).toBe(refunded.length);
    const last = await check();
    expect(last.action === 'next' && last.info?.remaining).toBe(100 - kept.length - 1);
  });

  it('a late outcome refund after the window moved on never drives the count negative', async () => {
    let now = T0;
    const clock = () => now;
    const store = new RefundCountingStore({ clock });
    const limits = [{ name: 'ip', key: () => 'k', algorithm: fixedWindow({ limit: 1, window: '1m' }) }];
    const check = gateFor({ limits, store, clock, skipFailedRequests: true });
    const first = await check();
    now = T0 + 60_000;
    if (first.action === 'next') first.finish(500);
    await store.refunded(1);
    expect((await check()).action).toBe('next');
    expect((await check()).action).toBe('deny');
  });
});
