/// <reference types="node" />
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byHeader, fixedWindow, rateLimiter } from '@floodgate/hono';
import { politeFetch } from '../src/index';
import type { PoliteFetch } from '../src/index';

/**
 * 50 clients against a real Floodgate server (Hono, fixedWindow of LIMIT per second per group).
 * Timing is judged by shares and spreads, never by absolute latencies: the machine may be busy.
 */
const CLIENTS = 50;
const LIMIT = 20;
const WINDOW = 1000;
const JITTER = 1000;
const BUCKET = 100;

interface Arrival {
  at: number;
  group: string;
  client: string;
  status: number;
}

const arrivals: Arrival[] = [];
let base = '';
let close: () => Promise<void> = async () => {};

beforeAll(async () => {
  const app = new Hono();
  app.use(async (c, next) => {
    const at = Date.now();
    await next();
    arrivals.push({
      at,
      group: c.req.header('x-group') ?? '',
      client: c.req.header('x-client') ?? '',
      status: c.res.status,
    });
  });
  app.use(
    rateLimiter({
      limits: [{ name: 'api', key: byHeader('x-group'), algorithm: fixedWindow({ limit: LIMIT, window: WINDOW }) }],
    }),
  );
  app.get('/', (c) => c.text('ok'));
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  // Open the connections and warm the code paths, so the first measured burst is not also the first request.
  await runCrowd('warm-up', () => fetch);
});

afterAll(() => close());

/** Waits for the next window to begin, plus `offset` ms: every crowd starts at the same point of a window. */
async function windowStart(offset: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, WINDOW - (Date.now() % WINDOW) + offset));
}

/** CLIENTS clients of `group`, each wanting one answer, all starting at once. */
async function runCrowd(group: string, clientOf: (i: number) => PoliteFetch): Promise<Response[]> {
  return Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const response = await clientOf(i)(base, { headers: { 'x-group': group, 'x-client': String(i) } });
      await response.arrayBuffer();
      return response;
    }),
  );
}

/** A client that retries a 429 at once, as many do. */
const naive: PoliteFetch = async (input, init) => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await fetch(input, init);
    if (response.status !== 429 || Date.now() > deadline) return response;
    await response.arrayBuffer();
  }
};

/** Small, seeded PRNG (mulberry32): each client draws its own, repeatable jitter. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Each client's first retry, in ms after the reset that ended the window of its first, refused, request. */
function firstRetries(group: string): number[] {
  const byClient = new Map<string, Arrival[]>();
  for (const arrival of arrivals.filter((a) => a.group === group)) {
    byClient.set(arrival.client, [...(byClient.get(arrival.client) ?? []), arrival]);
  }
  const offsets: number[] = [];
  for (const [first, second] of byClient.values()) {
    if (first?.status !== 429 || second === undefined) continue;
    const reset = (Math.floor(first.at / WINDOW) + 1) * WINDOW;
    offsets.push(second.at - reset);
  }
  return offsets.sort((a, b) => a - b);
}

interface Spread {
  retries: number;
  earliest: number;
  /** Arrivals per BUCKET ms after the reset. */
  histogram: number[];
  /** The fullest bucket's share of all retries. */
  peak: number;
  /** ms between the 10th and 90th percentile. */
  p10to90: number;
}

function spreadOf(offsets: number[]): Spread {
  const histogram: number[] = [];
  for (const offset of offsets) {
    const bucket = Math.max(0, Math.floor(offset / BUCKET));
    for (let i = histogram.length; i <= bucket; i++) histogram.push(0);
    histogram[bucket] = (histogram[bucket] ?? 0) + 1;
  }
  const at = (q: number) => offsets[Math.min(offsets.length - 1, Math.floor(q * offsets.length))] ?? 0;
  return {
    retries: offsets.length,
    earliest: offsets[0] ?? Number.NaN,
    histogram,
    peak: Math.max(...histogram) / offsets.length,
    p10to90: at(0.9) - at(0.1),
  };
}

const count429 = (group: string) => arrivals.filter((a) => a.group === group && a.status === 429).length;

describe(`${CLIENTS} clients against a Floodgate server allowing ${LIMIT} per second`, () => {
  it('spread their retries over the jitter window after a reset, and draw far fewer 429s than naive retry', async () => {
    await windowStart(50);
    // Jittered and unjittered politeFetch run side by side, each group with its own counter.
    const [polite, storm] = await Promise.all([
      runCrowd('polite', (i) => politeFetch({ jitter: JITTER, maxAttempts: 10, random: seeded(i + 1) })),
      runCrowd('storm', () => politeFetch({ jitter: 0, maxAttempts: 10 })),
    ]);
    // The naive crowd runs alone: its busy loop would slow the event loop the others are timed on.
    await windowStart(50);
    const naiveResponses = await runCrowd('naive', () => naive);

    const jittered = spreadOf(firstRetries('polite'));
    const unjittered = spreadOf(firstRetries('storm'));
    const tally = { polite: count429('polite'), storm: count429('storm'), naive: count429('naive') };
    console.log(JSON.stringify({ jittered, unjittered, tally }));

    // Everyone got through, in every crowd.
    for (const responses of [polite, storm, naiveResponses]) {
      expect(responses.map((r) => r.status)).toEqual(Array(CLIENTS).fill(200));
    }
    // (a) Each of the refused clients came back once the window had reset, never before it...
    expect(jittered.retries).toBe(CLIENTS - LIMIT);
    expect(jittered.earliest).toBeGreaterThanOrEqual(0);
    // ...spread over the jitter window: no 100 ms bucket holds more than 40 % of them (30 uniform draws
    // over ~11 buckets put 13 in one about twice in 100,000 runs; a storm puts them in one or two), and
    // the middle 80 % span at least half the window. Without jitter they come back together, within
    // the spread of their first answers.
    expect(jittered.peak).toBeLessThanOrEqual(0.4);
    expect(jittered.p10to90).toBeGreaterThanOrEqual(JITTER / 2);
    expect(unjittered.p10to90).toBeLessThan(jittered.p10to90 / 2);
    // (b) The same load retried at once meets the limit over and over.
    expect(tally.naive).toBeGreaterThanOrEqual(3 * tally.polite);
  }, 30_000);

  it('one client pacing itself from the headers draws no 429 where one that does not pace draws some', async () => {
    const sequence = async (group: string, fetch: PoliteFetch) => {
      for (let i = 0; i < 3 * LIMIT; i++) {
        const response = await fetch(base, { headers: { 'x-group': group, 'x-client': '0' } });
        await response.arrayBuffer();
        expect(response.status).toBe(200);
      }
    };
    await windowStart(50);
    await Promise.all([
      sequence('paced', politeFetch({ jitter: 100, random: seeded(7) })),
      sequence('unpaced', politeFetch({ jitter: 100, random: seeded(7), pace: false })),
    ]);
    const tally = { paced: count429('paced'), unpaced: count429('unpaced') };
    console.log(JSON.stringify({ pacing: tally }));
    expect(tally.paced).toBe(0);
    expect(tally.unpaced).toBeGreaterThanOrEqual(2);
  }, 30_000);
});
