import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker } from './bundle.ts';
import { burst, fetchFrom, startWorkers, untilAnswered } from './miniflare.ts';
import type { Miniflare } from 'miniflare';
import type { WorkerBundle } from './bundle.ts';
import type { WorkerSpec } from './miniflare.ts';

let bundle: WorkerBundle;
beforeAll(async () => {
  bundle = await bundleWorker('hono-durable');
});

/**
 * Two Workers (two isolates, each with its own limiter) bound to the objects of the first. These
 * tests are about the shared counts, so the limiter's deadline is far above any stall of a busy
 * machine: a call it cut short would be decided by the local fallback instead (the fallback has
 * its own tests, with a short deadline).
 */
function twoWorkers(config: object, objectClass: WorkerSpec['objectClass'] = 'FloodgateObject'): Miniflare {
  const patient = { timeout: 10_000, ...config };
  return startWorkers(bundle, [
    { name: 'a', config: patient, objectClass },
    { name: 'b', config: patient, objectClass, objectOwner: 'a' },
  ]);
}

async function statuses(responses: Response[]): Promise<{ admitted: number; denied: number; other: number[] }> {
  const bodies = await Promise.all(responses.map((response) => response.json() as Promise<{ degraded?: boolean }>));
  expect(bodies.filter((body) => body.degraded === true)).toEqual([]);
  const codes = responses.map((response) => response.status);
  return {
    admitted: codes.filter((code) => code === 200).length,
    denied: codes.filter((code) => code === 429).length,
    other: codes.filter((code) => code !== 200 && code !== 429),
  };
}

async function storeCall(mf: Miniflare, body: object): Promise<{ outcomes?: unknown[]; error?: unknown }> {
  const response = await fetchFrom(mf, 'a', '/store', {
    method: 'POST',
    body: JSON.stringify(body),
  });
  return (await response.json()) as { outcomes?: unknown[]; error?: unknown };
}

const log = (limit: number) => ({ kind: 'slidingLog', options: { limit, window: 3_600_000 } });

describe.each([
  ['one object per identity', {}],
  ['every key in one object (shards: 1)', { shards: 1 }],
  ['identities over 8 shards', { shards: 8 }],
])('DurableObjectStore in workerd, %s', (_, placement) => {
  let mf: Miniflare;
  beforeAll(async () => {
    mf = twoWorkers({ limit: 10, userLimit: 3, ...placement });
    await mf.ready;
    await untilAnswered(mf, ['a', 'b']);
  });
  afterAll(() => mf?.dispose());

  it('two Workers share one limit exactly: 40 requests at once, 10 admitted', async () => {
    const result = await statuses(await burst(mf, ['a', 'b'], '/limited/x', 40));
    expect(result).toEqual({ admitted: 10, denied: 30, other: [] });
  });

  it('a layer that denies charges no other layer, wherever the layers live', async () => {
    const user = { 'cf-connecting-ip': '203.0.113.20', 'x-user': 'u1' };
    const result = await statuses(await burst(mf, ['a', 'b'], '/limited/y', 12, user));
    expect(result).toEqual({ admitted: 3, denied: 9, other: [] });
    // The user layer (3) denied 9 requests; the IP layer (10) keeps only the 3 admitted ones. Read
    // without the deny cache: layers on two objects are charged in parallel and refunded when one
    // denies, so during the burst the IP layer may have looked full for a moment (README).
    const ipOnly = await fetchFrom(mf, 'b', '/uncached/y', {
      headers: { 'cf-connecting-ip': '203.0.113.20' },
    });
    expect(await ipOnly.json()).toMatchObject({ allowed: true, rule: 'ip', remaining: 10 - 3 - 1 });
  });

  it('peek and refund: the store gives units back and answers at the cost asked without charging', async () => {
    const call = (cost: number) => ({ key: 'fg:t:sl:{peek-refund}', cost, ...log(10) });
    expect((await storeCall(mf, { op: 'consume', calls: [call(4)] })).outcomes).toMatchObject([{ remaining: 6 }]);
    expect((await storeCall(mf, { op: 'peek', calls: [call(1)] })).outcomes).toMatchObject([{ remaining: 5 }]);
    expect((await storeCall(mf, { op: 'peek', calls: [call(1)] })).outcomes).toMatchObject([{ remaining: 5 }]);
    expect((await storeCall(mf, { op: 'peek', calls: [call(7)] })).outcomes).toMatchObject([
      { allowed: false, remaining: 6 },
    ]);
    await storeCall(mf, { op: 'refund', calls: [call(3)] });
    expect((await storeCall(mf, { op: 'peek', calls: [call(0)] })).outcomes).toMatchObject([
      { allowed: true, remaining: 9 },
    ]);
  });

  it('keeps layers all-or-nothing across identities when called directly', async () => {
    const calls = [
      { key: 'fg:a:sl:{left}', cost: 2, ...log(5) },
      { key: 'fg:b:sl:{right}', cost: 2, ...log(3) },
    ];
    const first = await storeCall(mf, { op: 'consume', calls });
    expect(first.outcomes).toMatchObject([
      { allowed: true, remaining: 3 },
      { allowed: true, remaining: 1 },
    ]);
    const second = await storeCall(mf, { op: 'consume', calls });
    // `right` denies; `left` reports its numbers uncharged, as a MemoryStore would.
    expect(second.outcomes).toMatchObject([
      { allowed: true, remaining: 3 },
      { allowed: false, remaining: 1 },
    ]);
    const atNoCost = calls.map((call) => ({ ...call, cost: 0 }));
    expect((await storeCall(mf, { op: 'peek', calls: atNoCost })).outcomes).toMatchObject([
      { remaining: 3 },
      { remaining: 1 },
    ]);
  });

  it('blocks each layer in the object it lives in, and unblock and reset reach every one', async () => {
    const left = { key: 'fg:a:sl:{block-left}', cost: 1, ...log(5) };
    const right = { key: 'fg:b:sl:{block-right}', cost: 1, ...log(5) };
    await storeCall(mf, { op: 'consume', calls: [left, right] });
    expect(await storeCall(mf, { op: 'block', duration: 60_000, calls: [left, right] })).toEqual({});
    for (const alone of [left, right]) {
      const [denied] = (await storeCall(mf, { op: 'consume', calls: [alone] })).outcomes as { retryAfter: number }[];
      expect(denied).toMatchObject({ allowed: false, remaining: 0, limit: 5 });
      expect(denied?.retryAfter).toBeGreaterThan(50_000);
      expect(denied?.retryAfter).toBeLessThanOrEqual(60_000);
    }
    await storeCall(mf, { op: 'unblock', calls: [left, right] });
    expect((await storeCall(mf, { op: 'consume', calls: [left, right] })).outcomes).toMatchObject([
      { allowed: true, remaining: 3 },
      { allowed: true, remaining: 3 },
    ]);
    await storeCall(mf, { op: 'reset', calls: [left, right] });
    const fresh = [left, right].map((call) => ({ ...call, cost: 0 }));
    expect((await storeCall(mf, { op: 'peek', calls: fresh })).outcomes).toMatchObject([
      { remaining: 5 },
      { remaining: 5 },
    ]);
  });
});

describe('DurableObjectStore checks calls in the Worker', () => {
  let mf: Miniflare;
  beforeAll(async () => {
    mf = twoWorkers({ limit: 10 });
    await mf.ready;
  });
  afterAll(() => mf?.dispose());

  it('rejects a bad cost before any object is called, with a stable code', async () => {
    const answer = await storeCall(mf, { op: 'consume', calls: [{ key: 'fg:x:sl:{bad}', cost: -1, ...log(5) }] });
    expect(answer.error).toMatchObject({ name: 'InvalidCostError', code: 'ERR_FLOODGATE_INVALID_COST' });
  });

  it('answers no layers with no call', async () => {
    expect(await storeCall(mf, { op: 'consume', calls: [] })).toEqual({ outcomes: [] });
  });
});

interface Rows {
  rows: number;
  alarm: number | null;
}

/** What the object named `name` has in storage (TestObject's `/rows`). */
async function rowsOf(mf: Miniflare, name: string): Promise<Rows> {
  return (await (await fetchFrom(mf, 'a', `/rows/${name}`)).json()) as Rows;
}

/** The object's storage once its alarm has swept everything, polled with a bound far above the 3 s entries live. */
async function swept(mf: Miniflare, name: string): Promise<Rows> {
  const deadline = Date.now() + 30_000;
  let seen = await rowsOf(mf, name);
  while ((seen.rows !== 0 || seen.alarm !== null) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen = await rowsOf(mf, name);
  }
  return seen;
}

describe('FloodgateObject storage', () => {
  let mf: Miniflare;
  beforeAll(async () => {
    mf = twoWorkers({ limit: 10 }, 'TestObject');
    await mf.ready;
  });
  afterAll(() => mf?.dispose());

  it('deletes keys once they expire, then wipes its storage and sets no alarm', async () => {
    // Kept 3 s after the consume (a rolling window): time enough to look at it on a busy machine.
    const call = { key: 'fg:s:sl:{sweep}', cost: 1, kind: 'slidingLog', options: { limit: 5, window: 3000 } };
    await storeCall(mf, { op: 'consume', calls: [call] });
    expect(await rowsOf(mf, 'id:sweep')).toMatchObject({ rows: 1, alarm: expect.any(Number) });
    expect(await swept(mf, 'id:sweep')).toEqual({ rows: 0, alarm: null });
    // And the object works on afterwards (its table is made again).
    expect((await storeCall(mf, { op: 'consume', calls: [call] })).outcomes).toMatchObject([{ allowed: true }]);
  });

  it('deletes blocks and strikes once they expire, as it deletes states', async () => {
    // One admitted, one denied: a state (kept 3 s), a block (until the log admits again, 3 s) and strikes (3.5 s).
    const call = {
      key: 'fg:s:sl:{penalised}',
      cost: 1,
      kind: 'slidingLog',
      options: { limit: 1, window: 3000 },
      penalty: { duration: 1000, period: 3500, max: 2000 },
    };
    await storeCall(mf, { op: 'consume', calls: [call] });
    const [denied] = (await storeCall(mf, { op: 'consume', calls: [call] })).outcomes as { allowed: boolean }[];
    expect(denied?.allowed).toBe(false);
    expect(await rowsOf(mf, 'id:penalised')).toMatchObject({ rows: 3, alarm: expect.any(Number) });
    expect(await swept(mf, 'id:penalised')).toEqual({ rows: 0, alarm: null });
  });
});
