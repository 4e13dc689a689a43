import { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { byIp, fixedWindow } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { freshPrefix, keysUnder } from '../redis/fixtures/client.ts';
import { useRedis } from '../redis/fixtures/suite.ts';
import { drivers } from './drivers.ts';
import { T0, withApp } from './suite.ts';
import type { DecisionEvent, Store } from '@floodgate/core';

/**
 * Catalogue A18 at the adapter level: the event loop stalls (a busy handler, a long GC) while
 * requests wait on Redis. When it runs again, each request's deadline has passed and its reply
 * sits in the socket buffer, in the same turn: the adapter must still answer each request once,
 * run its handler once, and never call next() or send twice.
 */

const suite = useRedis();

/** Commands ioredis has written and still waits on: the calls on the wire. */
const onTheWire = () => (suite.client as unknown as { commandQueue: { length: number } }).commandQueue.length;

const IN_FLIGHT = 20;
const STALL_MS = 300;

type LayerCalls = Parameters<Store['consume']>[0];

/**
 * Lets consumes through to the real store one by one until armed; then holds them until
 * `count` have arrived, sends them together (one batch on the wire), and stalls the event loop
 * for `stallMs` right after the batch is written, before any reply can be read.
 */
class StallingStore implements Store {
  #armed: { count: number; stallMs: number; waiting: (() => void)[] } | undefined;
  stalledFor = 0;
  /** Commands on the wire when the stall began. */
  inFlightAtStall = 0;

  constructor(readonly inner: Store) {}

  get local(): boolean {
    return this.inner.local === true;
  }

  arm(count: number, stallMs: number): void {
    this.#armed = { count, stallMs, waiting: [] };
  }

  async consume(calls: LayerCalls, requestId: string) {
    const armed = this.#armed;
    if (armed !== undefined) {
      await new Promise<void>((resolve) => {
        armed.waiting.push(resolve);
        if (armed.waiting.length < armed.count) return;
        this.#armed = undefined;
        for (const release of armed.waiting) release();
        // Queued after the continuations above, each of which submits its call: the batch is sent
        // (RedisStore flushes in a microtask and ioredis writes at once) before this busy wait.
        queueMicrotask(() => queueMicrotask(() => queueMicrotask(() => this.#stall(armed.stallMs))));
      });
    }
    return this.inner.consume(calls, requestId);
  }

  refund(calls: LayerCalls, requestId: string): Promise<void> {
    return this.inner.refund(calls, requestId);
  }

  #stall(ms: number): void {
    this.inFlightAtStall = onTheWire();
    const from = performance.now();
    while (performance.now() - from < ms) {
      // Busy: Redis answers and every deadline passes while the loop cannot run.
    }
    this.stalledFor = performance.now() - from;
  }
}

/** Counts `end()` per response object while a burst runs (what went out, not what was meant). */
function countEnds(): { perResponse(): number[]; stop(): void } {
  const original = ServerResponse.prototype.end;
  const ends = new Map<object, number>();
  ServerResponse.prototype.end = function end(this: ServerResponse, ...args: unknown[]) {
    ends.set(this, (ends.get(this) ?? 0) + 1);
    return (original as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as typeof original;
  return {
    perResponse: () => [...ends.values()],
    stop: () => {
      ServerResponse.prototype.end = original;
    },
  };
}

describe.each(drivers)('$name with a RedisStore', (driver) => {
  it(`answers each of ${IN_FLIGHT} requests once when the event loop stalls ${STALL_MS} ms with their Redis calls in flight`, async () => {
    // A limiter prefix may not hold ':', so this one is not among those the fixture deletes: the test does.
    const prefix = freshPrefix('stall').replaceAll(':', '.').slice(0, 60);
    const store = new StallingStore(new RedisStore({ client: suite.client, clock: () => T0 }));
    const decisions: DecisionEvent[] = [];
    let handlerRuns = 0;
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    const options = {
      limits: [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 1000, window: '1m' }) }],
      clock: () => T0,
      store,
      prefix,
      // Each deadline starts when its request arrives and passes within the stall, which starts once
      // all have arrived; 200 ms leaves a slow machine time to deliver the burst before any expires.
      timeout: 200,
      breaker: { failureThreshold: 100 },
      onDecision: (event: DecisionEvent) => decisions.push(event),
    };
    const hold = async () => {
      handlerRuns++;
    };
    process.on('unhandledRejection', onRejection);
    try {
      await withApp(driver, { options, hold }, async (app) => {
        // Warm-up: the script is loaded and the connection is open before the burst.
        expect((await fetch(`${app.url}/hold`)).status).toBe(200);
        decisions.length = 0;
        handlerRuns = 0;
        store.arm(IN_FLIGHT, STALL_MS);
        const ends = countEnds();
        try {
          const responses = await Promise.all(
            Array.from({ length: IN_FLIGHT }, async () => {
              const response = await fetch(`${app.url}/hold`);
              return { status: response.status, body: await response.text() };
            }),
          );
          expect(store.stalledFor).toBeGreaterThanOrEqual(STALL_MS);
          // The burst's script call (one batch) had been written when the loop stopped.
          expect(store.inFlightAtStall).toBeGreaterThanOrEqual(1);
          expect(responses.map((response) => response.status)).toEqual(new Array(IN_FLIGHT).fill(200));
          // Every handler saw its own decision: remaining runs from 998 down, each value once.
          const remaining = responses.map((response) => JSON.parse(response.body).remaining as number);
          expect(new Set(remaining).size).toBe(IN_FLIGHT);
          expect(ends.perResponse()).toEqual(new Array(IN_FLIGHT).fill(1));
        } finally {
          ends.stop();
        }
        expect(decisions).toHaveLength(IN_FLIGHT);
        expect(handlerRuns).toBe(IN_FLIGHT);
      });
    } finally {
      process.off('unhandledRejection', onRejection);
    }
    expect(rejections).toEqual([]);
    const keys = await keysUnder(suite.client, prefix);
    expect(keys).toHaveLength(1);
    await suite.client.del(...keys);
  });
});
