import { fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPrefix } from '../redis/fixtures/client.ts';
import { useRedis } from '../redis/fixtures/suite.ts';
import { type ClientFamily, OTHER_FAMILIES } from '../redis/fixtures/families.ts';
import { bundleFromSource } from './bundle.ts';
import type { ChildProcess } from 'node:child_process';

const PROCESSES = 3;
const IN_FLIGHT = 50;
const LIMIT = 37;
const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url));

// Registered first, so its afterAll runs last: the workers are killed before the server stops.
const suite = useRedis();
let bundle: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  bundle = await bundleFromSource();
});
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  if (bundle) rmSync(bundle, { force: true });
});

interface Tally {
  allowed: number;
  denied: number;
  failed: number;
}

/** Starts every worker, waits until all are connected, then lets them fire at once. */
async function race(factory: string, options: object, naive = false, family?: ClientFamily): Promise<Tally[]> {
  const prefix = freshPrefix(`concurrency-${factory}`);
  const config = {
    bundle,
    url: suite.url,
    prefix,
    factory,
    options,
    key: 'fg:ip:{shared}',
    requests: IN_FLIGHT,
    naive,
    family,
  };
  const workers = Array.from({ length: PROCESSES }, () => {
    const child = fork(WORKER, [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.add(child);
    child.once('exit', () => children.delete(child));
    const ready = new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it was ready`)));
    });
    return { child, ready };
  });
  await Promise.all(workers.map((worker) => worker.ready));
  const tallies = workers.map(
    ({ child }) =>
      new Promise<Tally>((resolve, reject) => {
        child.once('message', (tally) => resolve(tally as Tally));
        child.once('exit', (code) => reject(new Error(`worker exited with ${code} before reporting`)));
      }),
  );
  for (const { child } of workers) child.send('go');
  return Promise.all(tallies);
}

const total = (tallies: Tally[], field: keyof Tally) => tallies.reduce((sum, tally) => sum + tally[field], 0);

const EXACT: [string, object][] = [
  // Day-long aligned windows: a run never straddles a boundary (the odds are about 1 in 10^5).
  ['fixedWindow', { limit: LIMIT, window: '1d' }],
  ['slidingLog', { limit: LIMIT, window: '1h' }],
  // Refill so slow that not one token comes back during the run.
  ['tokenBucket', { capacity: LIMIT, refillRate: 0.000001 }],
  ['leakyBucket', { capacity: LIMIT, leakRate: 0.000001 }],
  ['gcra', { rate: 1, period: '1d', burst: LIMIT - 1 }],
  ['concurrency', { max: LIMIT, lease: '1h' }],
];

describe(`${PROCESSES} processes x ${IN_FLIGHT} requests in flight on one key, one Redis`, () => {
  it.each(EXACT)('%s admits exactly its limit', async (factory, options) => {
    const tallies = await race(factory, options);
    expect(total(tallies, 'failed')).toBe(0);
    expect(total(tallies, 'allowed') + total(tallies, 'denied')).toBe(PROCESSES * IN_FLIGHT);
    expect(total(tallies, 'allowed')).toBe(LIMIT);
  });

  it('the harness can fail: a naive read-then-write counter over-admits in the same race', async () => {
    const tallies = await race('fixedWindow', { limit: LIMIT, window: '1d' }, true);
    console.log(
      `naive read-then-write: admitted ${total(tallies, 'allowed')} of ${PROCESSES * IN_FLIGHT}, limit ${LIMIT}`,
    );
    expect(total(tallies, 'failed')).toBe(0);
    expect(total(tallies, 'allowed')).toBeGreaterThan(LIMIT);
  });

  it('slidingWindow admits exactly its limit when the previous window is empty', async () => {
    const tallies = await race('slidingWindow', { limit: LIMIT, window: '1d' });
    expect(total(tallies, 'failed')).toBe(0);
    expect(total(tallies, 'allowed') + total(tallies, 'denied')).toBe(PROCESSES * IN_FLIGHT);
    // The previous window (yesterday) is empty, so the estimate is the count itself: exact too.
    expect(total(tallies, 'allowed')).toBe(LIMIT);
  });
});

/**
 * The race for the other client families, kept short (each worker loads its client, ~2 s a race
 * on a busy machine): a counter in a hash and entries in a sorted set. The atomicity is the Lua's;
 * this shows that no client adds a retry or a duplicate on the way.
 */
const PER_FAMILY = EXACT.filter(([factory]) => ['fixedWindow', 'slidingLog'].includes(factory));

describe.each(OTHER_FAMILIES)(`the same race, each process's RedisStore over %s`, (family) => {
  it.each(PER_FAMILY)('%s admits exactly its limit', async (factory, options) => {
    const tallies = await race(factory, options, false, family);
    expect(total(tallies, 'failed')).toBe(0);
    expect(total(tallies, 'allowed') + total(tallies, 'denied')).toBe(PROCESSES * IN_FLIGHT);
    expect(total(tallies, 'allowed')).toBe(LIMIT);
  });
});
