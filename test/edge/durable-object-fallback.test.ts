import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker } from './bundle.ts';
import { burst, fetchFrom, readBodies, startWorkers, untilAnswered } from './miniflare.ts';
import type { Miniflare } from 'miniflare';
import type { WorkerBundle } from './bundle.ts';

let bundle: WorkerBundle;
beforeAll(async () => {
  bundle = await bundleWorker('hono-durable');
});

interface Answer {
  status: number;
  degraded: boolean | undefined;
  ms: number;
}

/** The deadline the Workers give the store; the hanging object would answer after 120 s. */
const TIMEOUT = 200;
/** Far above the deadline (a busy 2-core machine), far below the hang. */
const BOUND_MS = 15_000;

async function oneByOne(mf: Miniflare, worker: string, count: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await fetchFrom(mf, worker, '/limited/z', { headers: { 'cf-connecting-ip': '203.0.113.9' } });
    const body = (await response.json()) as { degraded?: boolean };
    answers.push({ status: response.status, degraded: body.degraded, ms: performance.now() - started });
  }
  return answers;
}

async function eventsOf(
  mf: Miniflare,
  worker: string,
): Promise<{ storeErrors: number; breaker: string[]; warnings: unknown[] }> {
  const response = await fetchFrom(mf, worker, '/events');
  return (await response.json()) as { storeErrors: number; breaker: string[]; warnings: unknown[] };
}

describe.each([
  ['throws on every call', 'throw'],
  ['never answers', 'hang'],
] as const)('a Durable Object that %s', (_, fault) => {
  let mf: Miniflare;
  beforeAll(async () => {
    // limit 10 shared by 2 instances: each isolate's local fallback admits 5. The breaker's first
    // wait is longer than the test: once open, it lets no probe through.
    const config = { limit: 10, timeout: TIMEOUT, instances: 2, probeInterval: 60_000 };
    mf = startWorkers(bundle, [
      { name: 'a', config, fault, objectClass: 'TestObject' },
      { name: 'b', config, fault, objectClass: 'TestObject', objectOwner: 'a' },
    ]);
    await mf.ready;
    // Only Worker b, which borrows a's object: the first test counts a's store errors from its first request.
    await untilAnswered(mf, ['b']);
  });
  afterAll(() => mf?.dispose());

  it('degrades every decision to the local fallback within the deadline, never an error', async () => {
    const answers = await oneByOne(mf, 'a', 8);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(answers.every((answer) => answer.degraded === true || answer.status === 429)).toBe(true);
    for (const answer of answers) expect(answer.ms).toBeLessThan(BOUND_MS);
    // Five failures open the breaker; after that the object is not called at all. An object that
    // fails is no storage problem: nothing to warn about.
    expect(await eventsOf(mf, 'a')).toEqual({ storeErrors: 5, breaker: ['open'], warnings: [] });
  });

  it('each isolate admits its share: two Workers together admit the limit', async () => {
    const responses = await burst(mf, ['a', 'b'], '/limited/w', 30, { 'cf-connecting-ip': '203.0.113.10' });
    const codes = responses.map((response) => response.status);
    await readBodies(mf, responses);
    expect(codes.filter((code) => code === 200).length).toBe(10);
    expect(codes.filter((code) => code !== 200 && code !== 429)).toEqual([]);
  });
});
