import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTLE_MS } from '../../packages/cloudflare/src/pending-charges.ts';
import { bundleWorker } from './bundle.ts';
import { fetchFrom, startWorkers } from './miniflare.ts';
import type { Miniflare } from 'miniflare';

/**
 * The one rule a store split over objects adds to MemoryStore's (PendingCharges): a charge made for
 * part of a request may be refunded a moment later, when another object denies the request. Until
 * it is settled (refunded, or SETTLE_MS old), a denial it alone explains gets a wait that ends then,
 * and no penalty. FloodgateObject is called here as DurableObjectStore calls it, at given instants.
 */

let mf: Miniflare;
beforeAll(async () => {
  mf = startWorkers(await bundleWorker('hono-durable'), [
    { name: 'a', config: { limit: 10 }, objectClass: 'FloodgateObject' },
  ]);
  await mf.ready;
});
afterAll(() => mf?.dispose());

const T = 1_700_000_000_000;
const HOUR = 3_600_000;
/** A log of 2 an hour; a client it denies is blocked for a minute. */
const layer = (key: string, cost: number, penalised = true) => ({
  key,
  cost,
  kind: 'slidingLog',
  options: { limit: 2, window: HOUR },
  params: [2, HOUR],
  ...(penalised ? { penalty: { duration: 60_000, period: 0, max: 60_000 } } : {}),
});

interface Outcome {
  allowed: boolean;
  remaining: number;
  retryAfter: number;
}

/** One request to the object named after `tag`, at `T + at`. */
async function send(tag: string, at: number, body: object): Promise<Outcome[]> {
  const response = await fetchFrom(mf, 'a', `/object/id:${tag}`, {
    method: 'POST',
    body: JSON.stringify({ now: T + at, ...body }),
  });
  const answer = (await response.json()) as { outcomes?: Outcome[]; error?: string };
  if (answer.outcomes === undefined) throw new Error(`the object answered ${JSON.stringify(answer)}`);
  return answer.outcomes;
}

describe('FloodgateObject: charges pending elsewhere', () => {
  it('a denial only a pending charge explains waits for it to settle, and is not penalised', async () => {
    const key = 'fg:a:sl:{pending}';
    // Part of request p1, whose other layers are in other objects: it may be refunded any moment.
    await send('pending', 0, { op: 'consume', id: 'p1', partial: true, layers: [layer(key, 2)] });
    const [pending] = await send('pending', 10, { op: 'consume', id: 'r2', layers: [layer(key, 1)] });
    expect(pending).toMatchObject({ allowed: false, retryAfter: SETTLE_MS - 10 });
    // The refund lands: room again, and no block was left behind.
    await send('pending', 30, { op: 'refund', id: 'p1', layers: [layer(key, 2)] });
    expect(await send('pending', 40, { op: 'consume', id: 'r3', layers: [layer(key, 1)] })).toMatchObject([
      { allowed: true, remaining: 1 },
    ]);
  });

  it('a denial on charges that are final (a whole request, or settled by age) waits the window and is penalised', async () => {
    const key = 'fg:a:sl:{final}';
    await send('final', 0, { op: 'consume', id: 'r1', layers: [layer(key, 2)] });
    const [final] = await send('final', 10, { op: 'consume', id: 'r2', layers: [layer(key, 1)] });
    expect(final).toMatchObject({ allowed: false, retryAfter: HOUR - 10 });
    // Blocked: even a request of cost 0 is denied now.
    expect(await send('final', 20, { op: 'peek', id: '', layers: [layer(key, 0)] })).toMatchObject([
      { allowed: false, remaining: 0 },
    ]);

    const aged = 'fg:a:sl:{aged}';
    await send('aged', 0, { op: 'consume', id: 'p1', partial: true, layers: [layer(aged, 2)] });
    const [settled] = await send('aged', SETTLE_MS, { op: 'consume', id: 'r2', layers: [layer(aged, 1)] });
    expect(settled?.retryAfter).toBe(HOUR - SETTLE_MS);
    expect((await send('aged', SETTLE_MS + 1, { op: 'peek', id: '', layers: [layer(aged, 0)] }))[0]?.allowed).toBe(
      false,
    );
  });

  it('a blocked key waits for its block, whatever is pending on it', async () => {
    const key = 'fg:a:sl:{blocked}';
    await send('blocked', 0, { op: 'consume', id: 'p1', partial: true, layers: [layer(key, 2, false)] });
    await send('blocked', 1, { op: 'block', id: '', duration: 300_000, layers: [layer(key, 0, false)] });
    const [denied] = await send('blocked', 2, { op: 'consume', id: 'r2', layers: [layer(key, 1, false)] });
    expect(denied).toMatchObject({ allowed: false, remaining: 0, retryAfter: 300_000 - 1 });
  });

  it('refuses a malformed request with 400 and the reason', async () => {
    const response = await fetchFrom(mf, 'a', '/object/id:pending', { method: 'POST', body: '{"op":"flush"}' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'unknown operation "flush"' });
  });
});
