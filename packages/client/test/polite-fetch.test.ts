/// <reference types="node" />
import { describe, expect, expectTypeOf, it } from 'vitest';
import { IDEMPOTENT_METHODS, politeFetch } from '../src/index';
import { ok, scriptedServer, tooMany } from './scripted-server';
import type { GiveUpEvent, WaitEvent } from '../src/index';
import type { Answer } from './scripted-server';

/** A politeFetch whose waits and give-ups are recorded. */
function recorded(options: Parameters<typeof politeFetch>[0] = {}) {
  const waits: WaitEvent[] = [];
  const giveUps: GiveUpEvent[] = [];
  const fetch = politeFetch({ onWait: (e) => waits.push(e), onGiveUp: (e) => giveUps.push(e), ...options });
  return { fetch, waits, giveUps };
}

/** Answers `first` to the first request and 200 after it. */
const once = (first: Answer) => (n: number) => (n === 0 ? first : ok);

describe('retrying a throttled answer', () => {
  it('waits Retry-After plus a drawn share of the jitter, never less', async () => {
    const server = await scriptedServer(once({ status: 429, headers: { 'retry-after': '1' } }));
    const { fetch, waits } = recorded({ jitter: 200, random: () => 0.5 });
    expect((await fetch(server.url)).status).toBe(200);
    expect(waits).toEqual([{ reason: 'retry', ms: 1100, minimum: 1000, attempt: 2, url: server.url }]);
    const [first, second] = server.hits;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1000);
  });

  it('without Retry-After, waits for the end of the window of a policy with no units left', async () => {
    const server = await scriptedServer(
      once({ status: 429, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0.3' } }),
    );
    const { fetch, waits } = recorded({ jitter: 0 });
    expect((await fetch(server.url)).status).toBe(200);
    expect(waits.map((w) => w.minimum)).toEqual([300]);
    expect(server.hits[1]!.at - server.hits[0]!.at).toBeGreaterThanOrEqual(299);
  });

  it('retries a 503 only when it carries Retry-After', async () => {
    const bare = await scriptedServer(once({ status: 503 }));
    const timed = await scriptedServer(once({ status: 503, headers: { 'retry-after': '0' } }));
    const { fetch, giveUps } = recorded({ jitter: 10 });
    expect((await fetch(bare.url)).status).toBe(503);
    expect((await fetch(timed.url)).status).toBe(200);
    expect([bare.hits.length, timed.hits.length, giveUps.length]).toEqual([1, 2, 0]);
  });

  it('without a hint from the server, draws from a window that doubles with each attempt (full jitter)', async () => {
    const server = await scriptedServer(() => ({ status: 429 }));
    const { fetch, waits, giveUps } = recorded({ jitter: 40, random: () => 0.75, maxAttempts: 4 });
    expect((await fetch(server.url)).status).toBe(429);
    expect(waits.map((w) => [w.minimum, w.ms])).toEqual([
      [0, 30],
      [0, 60],
      [0, 120],
    ]);
    expect(giveUps).toEqual([{ reason: 'attempts', status: 429, attempt: 4, url: server.url }]);
    expect(server.hits).toHaveLength(4);
  });

  it('reads the request body again for each attempt', async () => {
    const server = await scriptedServer(once(tooMany(0.05)));
    const { fetch } = recorded({ jitter: 10 });
    const response = await fetch(`${server.url}/items/7`, { method: 'PUT', body: '{"n":7}' });
    expect(response.status).toBe(200);
    expect(server.hits.map((hit) => [hit.method, hit.body])).toEqual([
      ['PUT', '{"n":7}'],
      ['PUT', '{"n":7}'],
    ]);
  });
});

describe('what is never retried', () => {
  it('POST, unless retryMethods opts it in', async () => {
    const server = await scriptedServer((n) => (n < 2 ? tooMany(0.05) : ok));
    const plain = recorded({ jitter: 10 });
    expect((await plain.fetch(server.url, { method: 'POST', body: 'a' })).status).toBe(429);
    expect(plain.giveUps.map((e) => e.reason)).toEqual(['method']);
    const opted = recorded({ jitter: 10, retryMethods: [...IDEMPOTENT_METHODS, 'POST'] });
    expect((await opted.fetch(server.url, { method: 'POST', body: 'b' })).status).toBe(200);
    expect(server.hits.map((hit) => hit.body)).toEqual(['a', 'b', 'b']);
  });

  it('a stream body: it is sent once and the 429 goes back to the caller', async () => {
    const server = await scriptedServer(() => tooMany(0.05));
    const { fetch, giveUps } = recorded({ jitter: 10 });
    const stream = new Blob(['chunk']).stream();
    const init = { method: 'PUT', body: stream, duplex: 'half' } as RequestInit;
    expect((await fetch(server.url, init)).status).toBe(429);
    // A Request's body is a stream too, whatever it was made from.
    expect((await fetch(new Request(server.url, { method: 'PUT', body: 'x' }))).status).toBe(429);
    expect(giveUps.map((e) => e.reason)).toEqual(['body', 'body']);
    expect(server.hits.map((hit) => hit.body)).toEqual(['chunk', 'x']);
  });
});

describe('bounds', () => {
  it('the request’s signal ends a wait at once, with its reason', async () => {
    const server = await scriptedServer(() => ({ status: 429, headers: { 'retry-after': '60' } }));
    const { fetch } = recorded({ maxWait: '2m' });
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(new Error('user left')), 100);
    await expect(fetch(server.url, { signal: controller.signal })).rejects.toThrow('user left');
    expect(performance.now() - started).toBeLessThan(5000);
    expect(server.hits).toHaveLength(1);
  });

  it('a Request’s own signal ends a pacing wait', async () => {
    const server = await scriptedServer(() => ({ status: 200, headers: { ratelimit: '"p";r=0;t=60' } }));
    const { fetch, waits } = recorded({ maxWait: '2m' });
    await fetch(server.url);
    const request = new Request(server.url, { signal: AbortSignal.timeout(100) });
    await expect(fetch(request)).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(waits.map((w) => w.reason)).toEqual(['pace']);
    expect(server.hits).toHaveLength(1);
  });

  it('gives up at once when the server’s minimum is more than what is left of maxWait', async () => {
    const server = await scriptedServer(() => tooMany(0.3));
    const { fetch, waits, giveUps } = recorded({ maxWait: 500, jitter: 100, random: () => 0.5 });
    expect((await fetch(server.url)).status).toBe(429);
    expect(waits.map((w) => w.ms)).toEqual([350]);
    expect(giveUps.map((e) => [e.reason, e.attempt])).toEqual([['max-wait', 2]]);
  });

  it('cuts the jitter so the waits never add up to more than maxWait', async () => {
    const server = await scriptedServer(() => tooMany(0.1));
    const { fetch, waits } = recorded({ maxWait: 250, jitter: 1000, random: () => 0.99, maxAttempts: 10 });
    expect((await fetch(server.url)).status).toBe(429);
    expect(waits.map((w) => w.ms)).toEqual([250]);
  });
});

describe('pacing before a 429', () => {
  it('holds the next call to an origin until a spent policy’s window ends; another origin goes at once', async () => {
    const spent = await scriptedServer(() => ({
      status: 200,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0.3' },
    }));
    const other = await scriptedServer(() => ok);
    const { fetch, waits } = recorded({ jitter: 0 });
    await fetch(spent.url);
    await fetch(other.url);
    await fetch(`${spent.url}/elsewhere`);
    expect(waits.map((w) => [w.reason, w.url])).toEqual([['pace', `${spent.url}/elsewhere`]]);
    expect(spent.hits[1]!.at - spent.hits[0]!.at).toBeGreaterThanOrEqual(290);
  });

  it('waits once a policy is at or below `pace`; pace: false never waits', async () => {
    const server = await scriptedServer(() => ({ status: 200, headers: { ratelimit: '"p";r=2;t=60' } }));
    const eager = recorded({ pace: 1 });
    await eager.fetch(server.url);
    await eager.fetch(server.url);
    const careful = recorded({ pace: 2, maxWait: 10 });
    await careful.fetch(server.url);
    await careful.fetch(server.url);
    const off = recorded({ pace: false });
    await off.fetch(server.url);
    await off.fetch(server.url);
    // careful's reset (60 s) is beyond maxWait: it is told, by not waiting, to let the server answer.
    expect([eager.waits.length, careful.waits.length, off.waits.length]).toEqual([0, 0, 0]);
    const patient = recorded({ pace: 2, jitter: 0, maxWait: '2m' });
    await patient.fetch(server.url);
    const call = patient.fetch(server.url, { signal: AbortSignal.timeout(50) });
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(patient.waits.map((w) => [w.reason, w.minimum > 59_000])).toEqual([['pace', true]]);
  });

  it('learns Retry-After only from a throttled answer (429, 503, or a 403 that says so)', async () => {
    const server = await scriptedServer(() => ({ status: 201, headers: { 'retry-after': '60' } }));
    const { fetch, waits } = recorded();
    await fetch(server.url, { method: 'POST' });
    await fetch(server.url);
    expect(waits).toEqual([]);
  });
});

describe('hooks', () => {
  it('a hook that throws changes nothing', async () => {
    const server = await scriptedServer(once(tooMany(0.02)));
    const fetch = politeFetch({
      jitter: 5,
      onWait: () => {
        throw new Error('hook');
      },
    });
    expect((await fetch(server.url)).status).toBe(200);
  });

  it('is a drop-in for fetch', () => {
    expectTypeOf(politeFetch()).toExtend<typeof globalThis.fetch>();
  });
});
