import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '@floodgate/express';
import type { DecisionEvent } from '@floodgate/core';
import { createPlayground } from '../src/app.js';
import { serve } from './serve.ts';

// A frozen clock: nothing refills or slides during a test, so every count below is exact.
const now = 1_700_000_000_000 + 1;
const clock = () => now;
let site: Awaited<ReturnType<typeof serve>>;
const decided = decisionLog();

beforeAll(async () => {
  const store = new MemoryStore({ clock });
  site = await serve(createPlayground({ store, clock, hold: 60_000, onDecision: decided.record }));
});
afterAll(() => site.close());

const get = (route: string, client: string, init: RequestInit = {}) =>
  fetch(`${site.url}${route}?client=${client}`, { ...init, headers: { accept: 'application/json' } });

/** What each route admits in one go under a frozen clock, and its draft-8 policy. */
const admitsAtOnce = [
  ['fixed-window', 10, '"fixed-window";q=10;w=10'],
  ['sliding-log', 10, '"sliding-log";q=10;w=10'],
  ['sliding-window', 10, '"sliding-window";q=10;w=10'],
  ['token-bucket', 10, '"token-bucket";q=10;w=10'],
  ['leaky-bucket-policing', 5, '"leaky-bucket-policing";q=5;w=5'],
  ['gcra', 3, '"gcra";q=3;w=3'],
] as const;

describe('each algorithm route', () => {
  it.each(admitsAtOnce)('%s admits %i, then answers 429 with headers', async (route, admitted, policy) => {
    const client = randomUUID();
    for (let i = 1; i <= admitted; i++) {
      const response = await get(`/api/${route}`, client);
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe(policy);
      expect(response.headers.get('ratelimit')).toMatch(new RegExp(`^"${route}";r=${admitted - i};t=\\d+$`));
      expect(await response.json()).toMatchObject({ admitted: true, remaining: admitted - i, delay: 0 });
    }
    const denied = await get(`/api/${route}`, client);
    expect(denied.status).toBe(429);
    expect(denied.headers.get('ratelimit-policy')).toBe(policy);
    expect(denied.headers.get('ratelimit')).toMatch(new RegExp(`^"${route}";r=0;t=\\d+$`));
    expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(denied.headers.get('content-type')).toContain('application/problem+json');
  });

  it('keeps clients apart: a new client id starts from a full limit', async () => {
    const client = randomUUID();
    for (let i = 0; i < 3; i++) await get('/api/gcra', client);
    expect((await get('/api/gcra', client)).status).toBe(429);
    expect((await get('/api/gcra', randomUUID())).status).toBe(200);
  });

  it('leaky-bucket-shaping queues five (the second waits 1 s), then denies', async () => {
    const client = randomUUID();
    const leave = new AbortController();
    const first = await get('/api/leaky-bucket-shaping', client);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ delay: 0 });
    const second = get('/api/leaky-bucket-shaping', client);
    // The third to fifth wait 2-4 s; they leave once the sixth has been denied, and their units go back.
    const waiting = [3, 4, 5].map(() =>
      get('/api/leaky-bucket-shaping', client, { signal: leave.signal }).catch(() => 'left'),
    );
    await decided.count(client, 5);
    const sixth = await get('/api/leaky-bucket-shaping', client);
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('ratelimit-policy')).toBe('"leaky-bucket-shaping";q=5;w=5');
    const delayed = await second;
    expect(delayed.status).toBe(200);
    expect(await delayed.json()).toMatchObject({ delay: 1000 });
    leave.abort();
    expect(await Promise.all(waiting)).toEqual(['left', 'left', 'left']);
  });

  it('concurrency admits three requests in flight and denies a fourth', async () => {
    const client = randomUUID();
    const leave = [new AbortController(), new AbortController(), new AbortController()];
    const held = await Promise.all(leave.map((c) => get('/api/concurrency', client, { signal: c.signal })));
    expect(held.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(held[2]!.headers.get('ratelimit')).toMatch(/^"concurrency";r=0;t=\d+$/);
    const fourth = await get('/api/concurrency', client);
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('ratelimit-policy')).toBe('"concurrency";q=3;w=30;qu="concurrent-requests"');
    for (const c of leave) c.abort();
  });
});

/** The limiter's decisions as they happen, so a test can wait for requests the server has admitted. */
function decisionLog() {
  const events: DecisionEvent[] = [];
  const waiters: (() => void)[] = [];
  const of = (client: string) => events.filter((event) => event.keys.some((key) => key.includes(client))).length;
  return {
    record(event: DecisionEvent) {
      events.push(event);
      for (const wake of waiters.splice(0)) wake();
    },
    async count(client: string, n: number) {
      while (of(client) < n) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}
