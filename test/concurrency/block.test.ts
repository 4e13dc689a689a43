import { fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPrefix, storedKey } from '../redis/fixtures/client.ts';
import { useRedis } from '../redis/fixtures/suite.ts';
import { bundleFromSource } from './bundle.ts';
import type { ChildProcess } from 'node:child_process';

const PROCESSES = 3;
const IN_FLIGHT = 50;
const LIMIT = 37;
const PENALTY = { duration: 60_000, period: 3_600_000, max: 600_000 };
const WORKER = fileURLToPath(new URL('./block-worker.mjs', import.meta.url));
const KEY = 'fg:ip:{shared}';

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

interface Outcome {
  allowed?: boolean;
  resetAt?: number;
  failed?: string;
}

/** The next message from `child`, or a rejection if it exits first. */
function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`worker exited with ${code}`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as T);
    });
  });
}

/** Starts the workers and waits until every one is connected. */
async function startWorkers(config: object): Promise<ChildProcess[]> {
  const workers = Array.from({ length: PROCESSES }, () => {
    const child = fork(WORKER, [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  });
  await Promise.all(workers.map((child) => nextMessage(child)));
  return workers;
}

/** Lets every worker fire its requests at once; every outcome of every worker. */
async function wave(workers: ChildProcess[], critical: boolean): Promise<Outcome[]> {
  const answers = workers.map((child) => nextMessage<Outcome[]>(child));
  for (const child of workers) child.send({ critical });
  return (await Promise.all(answers)).flat();
}

/** When the block on `key` ends, as stored in Redis (hash field `bu`, or the sorted set's '!b'). */
async function storedBlockEnd(key: string, hash: boolean): Promise<number> {
  if (hash) return Number(await suite.client.hget(key, 'bu'));
  return -Number(await suite.client.zscore(key, '!b'));
}

const RULES: [string, object, boolean][] = [
  // Day-long aligned windows: a run never straddles a boundary (the odds are about 1 in 10^5).
  ['fixedWindow', { limit: LIMIT, window: '1d' }, true],
  ['slidingLog', { limit: LIMIT, window: '1h' }, false],
  ['tokenBucket', { capacity: LIMIT, refillRate: 0.000001 }, true],
  ['concurrency', { max: LIMIT, lease: '1h' }, false],
];

describe(`${PROCESSES} processes x ${IN_FLIGHT} requests in flight on one penalised key, one Redis`, () => {
  it.each(RULES)(
    '%s: admits its limit, then every instance sees one block, not extended',
    async (factory, options, hash) => {
      const prefix = freshPrefix(`block-${factory}`);
      const workers = await startWorkers({
        bundle,
        url: suite.url,
        prefix,
        factory,
        options,
        key: KEY,
        requests: IN_FLIGHT,
        penalty: PENALTY,
        clock: 'client',
      });
      const first = await wave(workers, false);
      expect(first.filter((outcome) => outcome.failed !== undefined)).toEqual([]);
      expect(first.filter((outcome) => outcome.allowed)).toHaveLength(LIMIT);
      const until = await storedBlockEnd(storedKey(prefix, KEY), hash);
      const denied = first.filter((outcome) => !outcome.allowed);
      expect(denied).toHaveLength(PROCESSES * IN_FLIGHT - LIMIT);
      // One block, set by whichever request was denied first: every denial, the penalised one
      // included, in every instance, reports the same reset, no earlier than the block's end.
      const resets = [...new Set(denied.map((outcome) => outcome.resetAt))];
      expect(resets).toHaveLength(1);
      expect(resets[0]).toBeGreaterThanOrEqual(until);

      // A second race, critical requests included, during the block: nothing admitted, nothing extended.
      const second = await wave(workers, true);
      expect(second.every((outcome) => outcome.allowed === false && outcome.resetAt === resets[0])).toBe(true);
      expect(await storedBlockEnd(storedKey(prefix, KEY), hash)).toBe(until);
      // 113 + 150 denials, one penalty: the strikes count it once.
      expect(await suite.client.hget(`${storedKey(prefix, KEY)}!p`, 'n')).toBe('1');
      for (const child of workers) child.send('exit');
    },
  );

  it('with the server’s clock, every instance reports the one block in its own clock', async () => {
    const prefix = freshPrefix('block-server-clock');
    const workers = await startWorkers({
      bundle,
      url: suite.url,
      prefix,
      factory: 'fixedWindow',
      options: { limit: LIMIT, window: '1d' },
      key: KEY,
      requests: IN_FLIGHT,
      penalty: PENALTY,
      clock: 'server',
    });
    const outcomes = await wave(workers, false);
    expect(outcomes.filter((outcome) => outcome.allowed)).toHaveLength(LIMIT);
    const until = await storedBlockEnd(storedKey(prefix, KEY), true);
    // resetAt is moved into each process' clock by the time its reply took to arrive: at or after
    // the stored end, by one round trip (bounded loosely: the machine may be busy), never a new block.
    for (const { resetAt } of outcomes.filter((outcome) => !outcome.allowed)) {
      expect(resetAt).toBeGreaterThanOrEqual(until);
      expect(resetAt).toBeLessThan(until + 5000);
    }
    expect(await suite.client.hget(`${storedKey(prefix, KEY)}!p`, 'n')).toBe('1');
    for (const child of workers) child.send('exit');
  });
});
