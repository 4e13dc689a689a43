/// <reference types="node" />
import { describe, expect, it } from 'vitest';
import { politeFetch } from '../src/index';
import { headerSets } from './header-sets/index';
import { ok, scriptedServer } from './scripted-server';
import type { GiveUpEvent, PoliteFetchOptions, WaitEvent } from '../src/index';
import type { Answer } from './scripted-server';

/**
 * What politeFetch does on each header set, over a real HTTP server. A wait is seen through onWait
 * (which reports the server's minimum before waiting) and cut short at once by aborting the call,
 * so a 287-second Retry-After is checked in milliseconds.
 */
function observed(options: PoliteFetchOptions = {}) {
  const waits: WaitEvent[] = [];
  const giveUps: GiveUpEvent[] = [];
  let controller = new AbortController();
  const fetch = politeFetch({
    jitter: 0,
    maxWait: '1h',
    onWait: (event) => {
      waits.push(event);
      controller.abort(new Error('wait seen'));
    },
    onGiveUp: (event) => giveUps.push(event),
    ...options,
  });
  /** One call: its response, or undefined when it went into a wait (which the abort ended). */
  const call = async (input: string | Request, init: RequestInit = {}) => {
    controller = new AbortController();
    try {
      return await fetch(input, { ...init, signal: controller.signal });
    } catch (error) {
      if ((error as Error).message !== 'wait seen') throw error;
      return undefined;
    }
  };
  return { call, waits, giveUps };
}

const first = (answer: Answer) => (n: number) => (n === 0 ? answer : ok);

describe('politeFetch on each header set, draft-6 to draft-11 and legacy', () => {
  it.each(headerSets(Date.now()))('$name', async ({ status, lines, retry, pace, within }) => {
    const server = await scriptedServer(first({ status, headers: lines }));
    const { call, waits } = observed();
    const response = await call(server.url);
    if (retry !== undefined) {
      expect(response).toBeUndefined();
      expect(waits.map((w) => w.reason)).toEqual(['retry']);
      expectNear(waits[0]!.minimum, retry, within ?? 0);
      return;
    }
    expect(response?.status).toBe(status);
    const next = await call(server.url);
    if (pace !== undefined) {
      expect(next).toBeUndefined();
      expect(waits.map((w) => w.reason)).toEqual(['pace']);
      expectNear(waits[0]!.minimum, pace, within ?? 0);
    } else {
      expect(next?.status).toBe(200);
      expect(waits).toEqual([]);
    }
  });
});

/** A wait measured from a later instant than the server's: at most `expected`, and not much less. */
function expectNear(actual: number, expected: number, within: number): void {
  expect(actual).toBeLessThanOrEqual(expected + within);
  // The time between the server's answer and the client's reading of it, on a busy machine.
  expect(actual).toBeGreaterThan(expected - within - 5000);
}

describe('what the draft asks of a client', () => {
  it('Retry-After takes precedence over the effective window (§7), even a later one', async () => {
    const server = await scriptedServer(
      first({ status: 429, headers: { 'retry-after': '2', ratelimit: '"p";r=0;t=50' } }),
    );
    const { call, waits } = observed();
    await call(server.url);
    expect(waits.map((w) => [w.reason, w.minimum])).toEqual([['retry', 2000]]);
  });

  it('a 429 without Retry-After waits for the latest effective window of a spent policy', async () => {
    const server = await scriptedServer(
      first({ status: 429, headers: { ratelimit: '"a";r=0;t=3, "b";r=0;t=8, "c";r=4;t=60' } }),
    );
    const { call, waits } = observed();
    await call(server.url);
    expect(waits.map((w) => [w.reason, w.minimum])).toEqual([['retry', 8000]]);
  });

  it('malformed fields are ignored: no wait is drawn from them (§7)', async () => {
    for (const headers of [
      { ratelimit: '"p";r=0;t=-5' },
      { ratelimit: '"p";r=0;t=99999999999999999' },
      { 'ratelimit-policy': '"p";q=1;w=0', ratelimit: '"p";r=0;t=NaN' },
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '-30' },
    ]) {
      const server = await scriptedServer(first({ status: 200, headers }));
      const { call, waits } = observed();
      expect((await call(server.url))?.status).toBe(200);
      expect((await call(server.url))?.status).toBe(200);
      expect(waits, JSON.stringify(headers)).toEqual([]);
    }
  });

  it('a 429 whose hint is unreadable backs off with full jitter, as one with no hint', async () => {
    const server = await scriptedServer(
      first({ status: 429, headers: { 'retry-after': '-1', ratelimit: '"p";r=0;t=x' } }),
    );
    const { call, waits } = observed({ jitter: 400, random: () => 0.5 });
    await call(server.url);
    expect(waits.map((w) => [w.minimum, w.ms])).toEqual([[0, 200]]);
  });

  it('a response from a cache (Age > 0) teaches nothing (§7.3)', async () => {
    const server = await scriptedServer(first({ status: 200, headers: { age: '12', ratelimit: '"p";r=0;t=60' } }));
    const { call, waits } = observed();
    await call(server.url);
    expect((await call(server.url))?.status).toBe(200);
    expect(waits).toEqual([]);
  });

  it('a window beyond maxWait is not waited for: the pace is skipped and a 429 goes back at once', async () => {
    const spent = '"p";r=0;t=999999999999999';
    const paced = await scriptedServer(first({ status: 200, headers: { ratelimit: spent } }));
    const throttled = await scriptedServer(() => ({ status: 429, headers: { ratelimit: spent } }));
    const { call, waits, giveUps } = observed({ maxWait: '10 s' });
    await call(paced.url);
    expect((await call(paced.url))?.status).toBe(200);
    expect((await call(throttled.url))?.status).toBe(429);
    expect(waits).toEqual([]);
    expect(giveUps.map((g) => g.reason)).toEqual(['max-wait']);
  });
});

describe('partition keys and quota units', () => {
  it('a concurrency quota at 0 does not hold the next call; a request quota at 0 does', async () => {
    const server = await scriptedServer((n) => ({
      status: 200,
      headers: {
        'ratelimit-policy': '"jobs";q=2;qu="concurrent-requests", "ip";q=10',
        ratelimit: n === 0 ? '"jobs";r=0;t=30, "ip";r=9;t=30' : '"ip";r=0;t=30',
      },
    }));
    const { call, waits } = observed();
    await call(server.url);
    expect((await call(server.url))?.status).toBe(200);
    expect(waits).toEqual([]);
    expect(await call(server.url)).toBeUndefined();
    expect(waits.map((w) => w.reason)).toEqual(['pace']);
  });

  it('scope sees the request’s headers, so a client calling for many users paces each user alone', async () => {
    const server = await scriptedServer((_, hit) => ({
      status: 200,
      headers: { ratelimit: hit.headers['x-user'] === 'ann' ? '"user";r=0;t=30' : '"user";r=50;t=30' },
    }));
    const { call, waits } = observed({ scope: (url, headers) => `${url.origin} ${headers.get('x-user')}` });
    await call(server.url, { headers: { 'x-user': 'ann' } });
    expect((await call(server.url, { headers: { 'x-user': 'bob' } }))?.status).toBe(200);
    expect(waits).toEqual([]);
    expect(await call(new Request(server.url, { headers: { 'x-user': 'ann' } }))).toBeUndefined();
    expect(waits.map((w) => w.reason)).toEqual(['pace']);
  });
});

describe('the effective window is not "wait until full" (draft-11 §4.1.2, §8.4)', () => {
  it('a call that waited for a window looks again before it sends: another answer may have moved the end', async () => {
    // A bucket at its edge: each answer spends the unit it gave, and the next comes a second later.
    const server = await scriptedServer(() => ({ status: 200, headers: { ratelimit: '"tb";r=0;t=1' } }));
    const draws = [0, 0.8, 0];
    const waits: WaitEvent[] = [];
    const fetch = politeFetch({ jitter: 1000, random: () => draws.shift() ?? 0, onWait: (e) => waits.push(e) });
    await fetch(server.url);
    // Both wait for the end of the window; the first goes then, and its answer says: one more second.
    const [a, b] = await Promise.all([fetch(`${server.url}/a`), fetch(`${server.url}/b`)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const [, hitA, hitB] = server.hits;
    expect(hitB!.at - hitA!.at).toBeGreaterThanOrEqual(990);
    expect(waits.filter((w) => w.url.endsWith('/b')).map((w) => w.reason)).toEqual(['pace', 'pace']);
  });
});
