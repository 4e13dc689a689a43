import { createLimiter, fixedWindow, type KeyContext } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { limiterKey } from '../redis/fixtures/client.ts';
import { describe, expect, it } from 'vitest';
import { useCluster } from '../helpers/cluster-suite.ts';
import type { ClusterNode } from '../helpers/redis-cluster.ts';
import { freshPrefix } from '../helpers/redis-cluster-client.ts';
import { NOW } from './limiter.ts';
import { SlotMigration } from './migrate-slot.ts';
import { startLoad } from './tally.ts';
import { errorCount, scriptRuns } from './node-stats.ts';
import { WitnessedStore } from './witnessed-store.ts';
import { contextOf } from '../helpers/context.ts';

const suite = useCluster();

// Large enough that nothing is denied: every allowed decision is one charge of 1 on each layer.
const LIMIT = 1_000_000;
const WORKERS = 16;
// Decisions to wait for in each phase of the migration.
const PHASE = 200;
const TIMEOUT = 100;

/** How many errors of each kind, by message with numbers masked (slots, ports, timeouts). */
function byMessage(errors: readonly unknown[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const error of errors) {
    const message = (error instanceof Error ? error.message : String(error)).replace(/\d+/g, '#').slice(0, 100);
    counts[message] = (counts[message] ?? 0) + 1;
  }
  return counts;
}

/** What the nodes said during the run: errors by prefix (since CONFIG RESETSTAT). */
async function redirections(source: ClusterNode, target: ClusterNode, other: ClusterNode) {
  const count = (node: ClusterNode, prefix: string) => errorCount(suite.cluster, node, prefix);
  return {
    tryAgain: (await count(source, 'TRYAGAIN')) + (await count(target, 'TRYAGAIN')),
    ask: await count(source, 'ASK'),
    moved: [await count(source, 'MOVED'), await count(target, 'MOVED'), await count(other, 'MOVED')],
    noScriptOnTarget: await count(target, 'NOSCRIPT'),
  };
}

/** Two layers on one identity, so every consume is one 2-key script call on the identity's slot. */
function hotLimiter(store: WitnessedStore, prefix: string) {
  const storeErrors: unknown[] = [];
  const limiter = createLimiter({
    store,
    clock: () => NOW,
    prefix,
    timeout: TIMEOUT,
    denyCache: false,
    // The store's path through every step is the subject. With the default breaker (measured once)
    // it opened in the half-migrated phase and all 400 decisions of the next two were local.
    breaker: { failureThreshold: 1_000_000 },
    onStoreError: ({ error }) => storeErrors.push(error),
    limits: (['1m', '1h'] as const).map((window) => ({
      name: `per-${window}`,
      key: (ctx: KeyContext) => ctx.header('x-user'),
      algorithm: fixedWindow({ limit: LIMIT, window }),
    })),
  });
  const ctx: KeyContext = contextOf({ headers: { 'x-user': 'hot' } });
  const keys = (['1m', '1h'] as const).map((window) =>
    limiterKey(prefix, `per-${window}`, fixedWindow({ limit: LIMIT, window }), 'hot'),
  );
  return { consume: () => limiter.consume(ctx), keys, storeErrors };
}

/**
 * 16 loops consume the hot identity while its slot moves to another master, each step held until
 * the load has made PHASE more decisions: open the migration, move one of the two keys (the slot
 * is half-migrated: the 2-key script gets TRYAGAIN), move the rest (ASK to the target), close,
 * and one more phase on the target alone.
 */
async function migrateUnderLoad() {
  const { cluster, client } = suite;
  for (const node of cluster.masters()) await cluster.command(node, 'CONFIG', 'RESETSTAT');
  const store = new WitnessedStore(new RedisStore({ client, clock: () => NOW, timeout: 10_000 }), TIMEOUT);
  const { consume, keys, storeErrors } = hotLimiter(store, freshPrefix('migration'));
  const slot = Number(await client.cluster('KEYSLOT', keys[0] as string));
  const source = await cluster.masterOf(slot);
  const [target, other] = cluster.masters().filter((node) => node.port !== source.port) as [ClusterNode, ClusterNode];
  const migration = new SlotMigration(cluster, slot, source, target);

  // The first call loads the script on the source (EVALSHA, NOSCRIPT, EVAL) and opens the
  // connections; done once here, or 16 cold loops start with deadline misses.
  const warmUp = await consume();
  const { tally, stop } = startLoad(consume, WORKERS);
  const phases: string[] = [];
  /** Lets the load make PHASE more decisions; resolves to how many of them were degraded. */
  const phase = async (name: string) => {
    const [total, degraded] = [tally.total, tally.degraded];
    await tally.reach(total + PHASE);
    phases.push(`${name} ${tally.degraded - degraded}/${tally.total - total}`);
    return tally.degraded - degraded;
  };
  await phase('steady');
  await migration.open();
  await phase('open');
  await migration.move(keys.slice(0, 1));
  await phase('half-migrated');
  await migration.moveRest();
  await phase('moved');
  await migration.close();
  await phase('closed');
  const runsBefore = [await scriptRuns(cluster, source), await scriptRuns(cluster, target)];
  const redisBefore = tally.redisAllowed;
  const callsBefore = store.calls;
  const degradedOnTarget = await phase('on target');
  const redisOnTarget = tally.redisAllowed - redisBefore;
  const callsAfter = store.calls;
  const runsAfter = [await scriptRuns(cluster, source), await scriptRuns(cluster, target)];
  await stop();
  await store.settled();
  // How the calls made on the target alone ended (and the WORKERS before, whose decisions may have
  // come back in this phase): each that took longer than the deadline is one the limiter gave up on.
  const endsOnTarget = store.ends.slice(Math.max(0, callsBefore - WORKERS), callsAfter);
  const lateOnTarget = endsOnTarget.filter((end) => end !== 'failed' && end > TIMEOUT).length;
  const failedOnTarget = endsOnTarget.filter((end) => end === 'failed').length;

  const stored = await Promise.all(
    keys.map(async (key) => Number(await cluster.command(target, 'HGET', key, 'count'))),
  );
  // The warm-up is the one Redis-backed admission the tally did not see.
  const admittedByRedis = tally.redisAllowed + (warmUp.degraded ? 0 : 1);
  const errors = await redirections(source, target, other);
  console.log(
    `summary: ${tally.total} decisions, ${tally.degraded} degraded, max latency ${tally.maxLatency.toFixed(0)} ms ` +
      `(${tally.slowestWithoutStalls().toFixed(0)} without loop stalls), ` +
      `store errors ${JSON.stringify(byMessage(storeErrors))}; TRYAGAIN ${errors.tryAgain}, ASK ${errors.ask}, ` +
      `MOVED ${errors.moved.join('/')} (source/target/other), NOSCRIPT on target ${errors.noScriptOnTarget}; ` +
      `degraded per phase [${phases.join(', ')}], calls late on target ${lateOnTarget}; ${store.charged} charged (${store.charged - admittedByRedis} ` +
      `after the deadline, took ${JSON.stringify(store.lateCharges)} ms), stored ${stored.join('/')}; ` +
      `calls never run: ${JSON.stringify(byMessage(store.failures))}`,
  );
  return {
    warmUp,
    tally,
    storeErrors,
    admittedByRedis,
    charged: store.charged,
    stored,
    errors,
    degradedOnTarget,
    lateOnTarget,
    failedOnTarget,
    redisOnTarget,
    ranOnSource: (runsAfter[0] as number) - (runsBefore[0] as number),
    ranOnTarget: (runsAfter[1] as number) - (runsBefore[1] as number),
    owner: await cluster.masterOf(keys[0] as string),
    target,
  };
}

describe('slot migration of a hot identity under load (D45)', () => {
  // Measured on 2 cores (ioredis 5.11.1, Redis 7.0.15), 20 runs: in the half-migrated phase the
  // source answers the 2-key script TRYAGAIN (one key there, one gone) and ioredis retries it after
  // retryDelayOnTryAgain, 100 ms: the deadline itself. So nearly every decision of that phase is a
  // deadline miss, degraded; no TRYAGAIN reached the limiter before its deadline. The retries go on
  // after the limiter gave up: most end in "Too many Cluster redirections", but those still retrying
  // when the second key moves run on the target (ASK), up to ~330 ms after they started, and charge
  // Redis for a request already decided, and charged, locally: 7-19 such ghost charges per run. So
  // Redis holds the Redis-backed admissions plus those; no script run was ever charged twice.
  // With retryDelayOnTryAgain 0 or 20 (one run each) there were none: the retries failed in time.
  it('never fails a caller, answers within the deadline, charges each script run once, ends on the target', async () => {
    const run = await migrateUnderLoad();
    expect(run.warmUp).toMatchObject({ allowed: true, degraded: false });
    expect(run.tally.rejected).toEqual([]);
    expect(run.tally.denied).toBe(0);
    expect(run.tally.slowestWithoutStalls()).toBeLessThanOrEqual(TIMEOUT + 50);
    expect(run.tally.degraded).toBe(run.storeErrors.length);
    // The half-migrated slot really sent the 2-key script into TRYAGAIN.
    expect(run.errors.tryAgain).toBeGreaterThan(0);
    // Every script run charged both layers exactly once.
    expect(run.stored).toEqual([run.charged, run.charged]);
    // Every Redis-backed admission is in Redis; the excess is only calls answered after the deadline.
    expect(run.charged).toBeGreaterThanOrEqual(run.admittedByRedis);
    expect(run.charged - run.admittedByRedis).toBeLessThanOrEqual(run.tally.degraded);
    // Afterwards the target alone serves the slot, and every decision is Redis-backed again: every
    // call runs there, none fails, and a decision is local only where its call, run on the target,
    // came back after the deadline, which must stay rare (CI once saw 3 of 200, each 104 ms: a host
    // held up, or a retry the client scheduled around the migration's last step).
    expect(run.owner.port).toBe(run.target.port);
    expect(run.failedOnTarget).toBe(0);
    expect(run.degradedOnTarget).toBeLessThanOrEqual(run.lateOnTarget);
    expect(run.lateOnTarget).toBeLessThanOrEqual(PHASE / 20);
    expect(run.ranOnSource).toBe(0);
    // Up to WORKERS of the phase's decisions may have run before its first INFO was read.
    expect(run.ranOnTarget).toBeGreaterThanOrEqual(run.redisOnTarget - WORKERS);
  });
});
