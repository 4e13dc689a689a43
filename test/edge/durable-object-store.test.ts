import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker } from './bundle.ts';
import { burst, fetchFrom, startWorkers } from './miniflare.ts';
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
/** The same algorithm as the object reads it: its options and params. */
const logWire = (limit: number) => ({ options: { limit, window: 3_600_000 }, params: [limit, 3_600_000] });

describe.each([
  ['one object per identity', {}],
  ['every key in one object (shards: 1)', { shards: 1 }],
  ['identities over 8 shards', { shards: 8 }],
])('DurableObjectStore in workerd, %s', (_, placement) => {
  let mf: Miniflare;
  beforeAll(async () => {
    mf = twoWorkers({ limit: 10, userLimit: 3, ...placement });
    await mf.ready;
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

  it('peek and refund: the store gives units back and reports without charging', async () => {
    const call = (cost: number) => ({ key: 'fg:t:sl:{peek-refund}', cost, ...log(10) });
    expect((await storeCall(mf, { op: 'consume', calls: [call(4)] })).outcomes).toMatchObject([{ remaining: 6 }]);
    expect((await storeCall(mf, { op: 'peek', calls: [call(1)] })).outcomes).toMatchObject([{ remaining: 6 }]);
    expect((await storeCall(mf, { op: 'peek', calls: [call(1)] })).outcomes).toMatchObject([{ remaining: 6 }]);
    await storeCall(mf, { op: 'refund', calls: [call(3)] });
    expect((await storeCall(mf, { op: 'peek', calls: [call(1)] })).outcomes).toMatchObject([
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
    expect((await storeCall(mf, { op: 'peek', calls })).outcomes).toMatchObject([{ remaining: 3 }, { remaining: 1 }]);
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

describe('FloodgateObject, called as DurableObjectStore calls it', () => {
  let mf: Miniflare;
  beforeAll(async () => {
    mf = twoWorkers({ limit: 10 });
    await mf.ready;
  });
  afterAll(() => mf?.dispose());

  const layer = (key: string, cost: number) => ({ key, cost, kind: 'slidingLog', ...logWire(2) });
  const send = async (body: object) => {
    const response = await fetchFrom(mf, 'a', '/object/id:pending', { method: 'POST', body: JSON.stringify(body) });
    return (await response.json()) as { outcomes: { allowed: boolean; retryAfter: number }[] };
  };

  it('a denial caused only by part of a request still pending waits for it to settle, not the window', async () => {
    // Part of request p1, whose other layers are in other objects: it may be refunded any moment.
    await send({ op: 'consume', id: 'p1', partial: true, layers: [layer('fg:a:sl:{pending}', 2)] });
    const [pendingDenial] = (await send({ op: 'consume', id: 'r2', layers: [layer('fg:a:sl:{pending}', 1)] })).outcomes;
    expect(pendingDenial).toMatchObject({ allowed: false });
    expect(pendingDenial?.retryAfter).toBeLessThanOrEqual(1000);
    // The refund lands: room again.
    await send({ op: 'refund', id: 'p1', layers: [layer('fg:a:sl:{pending}', 2)] });
    expect((await send({ op: 'consume', id: 'r3', layers: [layer('fg:a:sl:{pending}', 1)] })).outcomes).toMatchObject([
      { allowed: true },
    ]);
    // A whole request's charge is final: the denial it causes waits for the window.
    await send({ op: 'consume', id: 'r4', layers: [layer('fg:b:sl:{pending}', 2)] });
    const [finalDenial] = (await send({ op: 'consume', id: 'r5', layers: [layer('fg:b:sl:{pending}', 1)] })).outcomes;
    expect(finalDenial?.retryAfter).toBeGreaterThan(3_000_000);
  });

  it('refuses a malformed request with 400 and the reason', async () => {
    const response = await fetchFrom(mf, 'a', '/object/id:pending', { method: 'POST', body: '{"op":"reset"}' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'unknown operation "reset"' });
  });
});

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
    const rows = async () => (await (await fetchFrom(mf, 'a', '/rows/id:sweep')).json()) as object;
    expect(await rows()).toMatchObject({ rows: 1, alarm: expect.any(Number) });
    // Then the alarm sweeps. Polled, with a bound far above the 3 s.
    const deadline = Date.now() + 30_000;
    let seen = await rows();
    while (JSON.stringify(seen) !== JSON.stringify({ rows: 0, alarm: null }) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      seen = await rows();
    }
    expect(seen).toEqual({ rows: 0, alarm: null });
    // And the object works on afterwards (its table is made again).
    expect((await storeCall(mf, { op: 'consume', calls: [call] })).outcomes).toMatchObject([{ allowed: true }]);
  });
});
