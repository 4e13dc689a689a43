import { fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLimiter, fixedWindow, tokenBucket } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../helpers/redis-server.ts';
import { connectClient, freshPrefix } from '../redis/fixtures/client.ts';
import { bundleFromSource } from './bundle.ts';
import type { ChildProcess } from 'node:child_process';
import type { Algorithm } from '@floodgate/core';
import type { Redis } from 'ioredis';
import type { RedisServer } from '../helpers/redis-server.ts';

const PROCESSES = 4;
const WORKER = fileURLToPath(new URL('./lease-worker.mjs', import.meta.url));
const ctx = { ip: undefined, header: () => undefined, req: {} };

// A server of this file's own, so that its command counts are this file's alone.
let server: RedisServer;
let client: Redis;
let bundle: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  [server, bundle] = await Promise.all([startRedis(), bundleFromSource()]);
  client = await connectClient(server.url);
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  if (bundle) rmSync(bundle, { force: true });
  client?.disconnect();
  await server?.stop();
});

interface Tally {
  allowed: number;
  denied: number;
  failed: number;
}

interface Race {
  factory: 'fixedWindow' | 'tokenBucket';
  options: object;
  lease: { size: number; ttl: string } | undefined;
  /** Requests of each process, sent by `loops` loops at once, each one request after another. */
  requests: readonly number[];
  loops: number;
}

/** Script runs Redis has counted so far (EVALSHA, EVAL, FCALL). */
async function scriptCalls(): Promise<number> {
  const info = await client.info('commandstats');
  let calls = 0;
  for (const [, , count] of info.matchAll(/^cmdstat_(evalsha|eval|fcall|fcall_ro):calls=(\d+)/gm)) {
    calls += Number(count);
  }
  return calls;
}

/** Starts every worker, waits until all are ready, lets them fire at once; counts the script runs in between. */
async function race(race: Race) {
  const prefix = freshPrefix('lease-race');
  const workers = race.requests.map((requests) => {
    const config = { ...race, requests, bundle, url: server.url, prefix };
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
  const before = await scriptCalls();
  const tallies = workers.map(
    ({ child }) =>
      new Promise<Tally>((resolve, reject) => {
        child.once('message', (tally) => resolve(tally as Tally));
        child.once('exit', (code) => reject(new Error(`worker exited with ${code} before reporting`)));
      }),
  );
  for (const { child } of workers) child.send('go');
  const done = await Promise.all(tallies);
  const calls = (await scriptCalls()) - before;
  const sum = (field: keyof Tally) => done.reduce((total, tally) => total + tally[field], 0);
  return { prefix, calls, allowed: sum('allowed'), denied: sum('denied'), failed: sum('failed') };
}

/** What is left of the shared key in Redis itself, read by a limiter of this process without a lease. */
async function leftInRedis(prefix: string, algorithm: Algorithm): Promise<number> {
  const store = new RedisStore({ client, prefix });
  const limiter = createLimiter({ store, limits: [{ name: 'hot', key: () => 'shared', algorithm }] });
  return (await limiter.peek(ctx, { cost: 0 })).remaining;
}

const LIMIT = 200;
const SIZE = 10;
const BOUNDED: [Race['factory'], object, Algorithm][] = [
  // A day-long aligned window: a run never straddles a boundary (the odds are about 1 in 10^5).
  ['fixedWindow', { limit: LIMIT, window: '1d' }, fixedWindow({ limit: LIMIT, window: '1d' })],
  // Refill so slow that not one token comes back during the run.
  ['tokenBucket', { capacity: LIMIT, refillRate: 0.000001 }, tokenBucket({ capacity: LIMIT, refillRate: 0.000001 })],
];

describe(`${PROCESSES} processes leasing one hot key (size ${SIZE}) on one Redis`, () => {
  beforeAll(async () => {
    // Loads the script, so that no worker's first call is a NOSCRIPT retry.
    await leftInRedis(freshPrefix('warm'), fixedWindow({ limit: 1, window: 1000 }));
  });

  it.each(BOUNDED)('%s admits between limit - size × processes and limit', async (factory, options, algorithm) => {
    // One process stops early, most likely with units left in its pool while the others are denied.
    const requests = [15, 95, 95, 95];
    const result = await race({ factory, options, lease: { size: SIZE, ttl: '1h' }, requests, loops: 5 });
    console.log(`${factory}: admitted ${result.allowed} of 300 (limit ${LIMIT}), ${result.calls} script runs`);
    expect(result.failed).toBe(0);
    expect(result.allowed + result.denied).toBe(300);
    expect(result.allowed).toBeLessThanOrEqual(LIMIT);
    expect(result.allowed).toBeGreaterThanOrEqual(LIMIT - SIZE * PROCESSES);
    // Every process closed its limiter: each leased unit not admitted is back in Redis. A bucket
    // takes back only the whole tokens it still holds of a lease: once the refill has moved its level
    // by a hair, a pool whose known level was exactly its own units returns one token fewer (one per
    // process), never one more.
    const left = await leftInRedis(result.prefix, algorithm);
    const rounding = factory === 'fixedWindow' ? 0 : PROCESSES;
    expect(left).toBeLessThanOrEqual(LIMIT - result.allowed);
    expect(left).toBeGreaterThanOrEqual(LIMIT - result.allowed - rounding);
  });

  it('under the limit every request is admitted, and the units left in the pools come back on close()', async () => {
    // 45 requests take 5 leases of 10 in each process: the 4 × 50 leased units are exactly the limit.
    const [factory, options, algorithm] = BOUNDED[0] as (typeof BOUNDED)[0];
    const requests = [45, 45, 45, 45];
    const result = await race({ factory, options, lease: { size: SIZE, ttl: '1h' }, requests, loops: 5 });
    expect(result.failed).toBe(0);
    expect(result.allowed).toBe(180);
    expect(await leftInRedis(result.prefix, algorithm)).toBe(20);
  });

  it(`Redis runs about 1/${SIZE} of a script per request with a lease, 1 without`, async () => {
    const options = { limit: 100_000, window: '1d' };
    const perProcess = 20 * SIZE;
    const sequential = {
      factory: 'fixedWindow',
      options,
      requests: Array(PROCESSES).fill(perProcess),
      loops: 1,
    } as const;
    const plain = await race({ ...sequential, lease: undefined });
    const leased = await race({ ...sequential, lease: { size: SIZE, ttl: '1h' } });
    const sent = PROCESSES * perProcess;
    console.log(
      `script runs per request: ${(plain.calls / sent).toFixed(3)} without a lease, ${(leased.calls / sent).toFixed(3)} with size ${SIZE}`,
    );
    expect(plain.allowed).toBe(sent);
    expect(leased.allowed).toBe(sent);
    expect(plain.calls).toBe(sent);
    // One lease per SIZE requests; every pool is empty at the end, so close() sends nothing.
    expect(leased.calls).toBe(sent / SIZE);
  });
});
