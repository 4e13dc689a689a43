import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker } from './bundle.ts';
import { fetchFrom, startWorkers } from './miniflare.ts';
import type { Miniflare } from 'miniflare';
import type { FloodgateWarning } from '@floodgate/core';

/**
 * Issue 19, item 15: FloodgateObject bound as a key-value Durable Object (a class under
 * `new_classes`, not `new_sqlite_classes`) cannot keep state. Every request is then decided by the
 * isolate's local fallback, and the app must be told so once, with the wrangler setting that fixes
 * it, instead of degrading silently for ever. In workerd, through miniflare.
 */

interface Events {
  storeErrors: number;
  breaker: string[];
  warnings: FloodgateWarning[];
}

let mf: Miniflare;
beforeAll(async () => {
  const bundle = await bundleWorker('hono-durable');
  mf = startWorkers(bundle, [
    // The breaker's first wait is longer than the test: once open, it lets no probe through.
    { name: 'kv', config: { limit: 4, probeInterval: 60_000 }, objectClass: 'FloodgateObject', storage: 'key-value' },
    { name: 'sqlite', config: { limit: 4 }, objectClass: 'FloodgateObject' },
  ]);
  await mf.ready;
});
afterAll(() => mf?.dispose());

async function decide(worker: string, count: number): Promise<{ status: number; degraded: boolean }[]> {
  const answers = [];
  for (let i = 0; i < count; i++) {
    const response = await fetchFrom(mf, worker, '/limited/x', { headers: { 'cf-connecting-ip': '203.0.113.21' } });
    const body = (await response.json()) as { degraded?: boolean };
    answers.push({ status: response.status, degraded: body.degraded === true });
  }
  return answers;
}

const eventsOf = async (worker: string) => (await (await fetchFrom(mf, worker, '/events')).json()) as Events;

describe('FloodgateObject on key-value storage (issue 19, item 15)', () => {
  it('is decided locally, and says so once through onWarning, naming new_sqlite_classes', async () => {
    const answers = await decide('kv', 8);
    // The local fallback: still limited (4 a client, one instance), every decision degraded.
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
    expect(answers.filter((answer) => answer.status === 200).every((answer) => answer.degraded)).toBe(true);
    const events = await eventsOf('kv');
    expect(events.breaker).toEqual(['open']);
    expect(events.warnings.map((warning) => warning.code)).toEqual(['WARN_FLOODGATE_DURABLE_OBJECT_STORAGE']);
    const [warning] = events.warnings as [FloodgateWarning];
    expect(warning.message).toMatch(/new_sqlite_classes/);
    expect(warning.message).toMatch(/new_classes/);
    expect(warning.message).toMatch(/degraded/);
  });

  it('a SQLite class decides in the object and warns about nothing (the control)', async () => {
    const answers = await decide('sqlite', 5);
    expect(answers).toEqual([...new Array(4).fill({ status: 200, degraded: false }), { status: 429, degraded: false }]);
    expect(await eventsOf('sqlite')).toEqual({ storeErrors: 0, breaker: [], warnings: [] });
  });
});
