import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '@floodgate/redis';
import { startSentinel, type RedisSentinel } from '../helpers/redis-sentinel.ts';
import { startApp } from '../chaos/support/app.ts';
import { at, boundFor, expectBounded, watch } from '../chaos/support/checks.ts';
import { COOLDOWN } from '../chaos/support/fixture.ts';
import { runLoad } from '../chaos/support/load.ts';
import { connectFamilySentinel, type FamilyClient, type SentinelFamily } from '../redis/fixtures/families.ts';
import { chargesOn, evalCalls } from './charges.ts';
import { expectAnswered, expectDegradedWithin, lostOutside, report, type Run } from './run.ts';

/**
 * Issue 20: a Sentinel-managed Redis (one master, one replica, three sentinels judging a node down
 * after 1 s) under steady load (100 requests a second) through the Express adapter, while the master is killed (-9) or
 * handed over (SENTINEL FAILOVER). Every request is its own client under a limit of 1, so the new
 * master's keys say exactly which charges survived (charges.ts).
 */
let sentinel: RedisSentinel;
beforeAll(async () => {
  sentinel = await startSentinel();
}, 30_000);
afterAll(async () => {
  await sentinel?.stop();
});

const RATE = 100;
/**
 * How far behind the master a replica may be (asynchronous replication): what the master admitted
 * that long before a failover can be lost. Milliseconds on a quiet machine; a loaded one can hold
 * a replica's process back for much longer (charges decided 861 ms before the fault were lost once,
 * with five other agents' builds and tests on the machine's two cores).
 */
const LAG = 1500;
/**
 * The limiter's deadline and the client's commandTimeout. Not the chaos suite's 100 ms: the subject
 * is the switch of masters, and on a machine shared by several test runs (load average above 20
 * while this was written) 100 ms calls time out now and then, far from any failover.
 */
const TIMEOUT = 500;
/**
 * How long after the switch decisions may stay degraded: two breaker cooldowns (a probe may fail
 * while the client reconnects) and 3 s for the client to reconnect on a loaded machine (ioredis'
 * default retryStrategy waits up to 0.5 s by then); node-redis 1 s more (it waits 1 s between
 * rediscoveries, and holds calls meanwhile, which then miss the deadline). Far below what a client
 * stuck on the old master (10 s) or one that ended (never) would show.
 */
const RECOVERY: Record<SentinelFamily, number> = {
  ioredis: 2 * COOLDOWN + 3000,
  iovalkey: 2 * COOLDOWN + 3000,
  'node-redis': 2 * COOLDOWN + 4000,
};
/** How long after Sentinel names the new master the client may take to follow it (2.5 s seen once). */
const FOLLOW = 4000;
/** Each family's own clients (`kill<x><id>`), so that each run counts only its own charges. */
const PREFIX: Record<SentinelFamily, string> = { ioredis: 'i', iovalkey: 'v', 'node-redis': 'n' };

async function underLoad(
  family: SentinelFamily,
  fault: 'kill' | 'failover',
  prefix: string,
  durationMs: number,
  rate = RATE,
  afterSwitch?: (oldMaster: number) => Promise<void>,
): Promise<Run> {
  const client: FamilyClient = await connectFamilySentinel(family, sentinel.sentinels, sentinel.name, {
    commandTimeout: TIMEOUT,
  });
  const app = await startApp({
    store: new RedisStore({ client: client.client, onWarning: () => {} }),
    timeout: TIMEOUT,
    breaker: { cooldown: COOLDOWN },
    limit: 1,
    // Each key's TTL ends with its window, aligned to the epoch on Redis' clock: one that ended
    // during a run (every 10 minutes, with the 600 s window this had) took the charges made before
    // it away, and they read as lost. A day's window ends during a run about once in 10^4.
    windowMs: 86_400_000,
  });
  try {
    await runLoad({ url: app.url, rate: 100, durationMs: 300, uniquePrefix: `warm${prefix}` });
    app.decisions.length = 0;
    app.storeErrors.length = 0;
    app.breakerChanges.length = 0;
    const watching = watch();
    const switches = await sentinel.watchSwitches();
    const load = runLoad({ url: app.url, rate, durationMs, uniquePrefix: prefix });
    await at(1000);
    const oldMaster = await sentinel.masterPort();
    const replica = [...sentinel.nodes.keys()].find((port) => port !== oldMaster) as number;
    // A replica's script cache is empty (scripts are not replicated), whatever earlier tests ran on it.
    for (const port of sentinel.nodes.keys()) if (port !== oldMaster) await sentinel.command(port, 'SCRIPT', 'FLUSH');
    const faultAt = performance.now();
    const promoted = sentinel.waitForRole(replica, 'master');
    if (fault === 'kill') await sentinel.nodes.get(oldMaster)?.kill();
    else await sentinel.command(sentinel.sentinels[0]?.port as number, 'SENTINEL', 'FAILOVER', sentinel.name);
    const newMaster = await sentinel.waitForSwitch(oldMaster);
    const switchedAt = performance.now();
    const promotedAt = await promoted;
    await afterSwitch?.(oldMaster);
    const samples = await load;
    switches.stop();
    const { rejections } = watching.stop();
    const lastDegraded = app.decisions.findLast((d) => d.degraded);
    const recovered = (lastDegraded?.at ?? switchedAt) - switchedAt;
    return {
      app,
      samples,
      rejections,
      faultAt,
      promotedAt,
      switchedAt,
      oldMaster,
      newMaster,
      recovered,
      switches: switches.at,
    };
  } finally {
    await app.close();
    await client.close();
  }
}

/**
 * What every run asserts: answered, bounded, and degraded only from the fault until the client has
 * followed the switch and the breaker has let a probe through (cooldown + 1 s, once more for a
 * probe that fails while the new master warms up on a busy machine); no NOSCRIPT reaches the app.
 */
async function expectLikeOneNode(run: Run, family: SentinelFamily, evalsBefore: Map<number, number>): Promise<void> {
  expect(run.rejections).toEqual([]);
  expect(run.switches.length, 'the switch the test made was heard').toBeGreaterThanOrEqual(1);
  expectAnswered(run);
  expectBounded(run.app, boundFor(TIMEOUT));
  expectDegradedWithin(run, run.switchedAt + RECOVERY[family]);
  expect(run.app.breakerChanges.at(-1)?.to ?? 'closed').toBe('closed');
  expect(run.app.storeErrors.filter((e) => /NOSCRIPT/i.test(String(e.error)))).toEqual([]);
  // The script cache is not replicated: the new master was sent the script (NOSCRIPT, then EVAL).
  expect((await evalCalls(sentinel)).get(run.newMaster)).toBeGreaterThan(evalsBefore.get(run.newMaster) ?? 0);
}

describe.each(['ioredis', 'node-redis'] as const)('Sentinel, %s as the README recommends (issue 20)', (family) => {
  it('SENTINEL FAILOVER: no 5xx, bounded, charges lost only until the client follows the switch', async () => {
    await sentinel.waitForReplica();
    const evalsBefore = await evalCalls(sentinel);
    // Sentinel makes the old master a replica about 10 s after the switch; the test does it 1 s after
    // (the client has left it by then), so that the next test finds a replica.
    const run = await underLoad(family, 'failover', `handover${PREFIX[family]}`, 7000, RATE, async (old) => {
      await at(1000);
      await sentinel.demote(old);
    });
    const { lost, ghost, degradedIds } = await chargesOn(sentinel, `handover${PREFIX[family]}`, run.app.decisions);
    report(`${family}, SENTINEL FAILOVER`, run, lost, ghost.length);
    await expectLikeOneNode(run, family, evalsBefore);
    // The old master takes writes until the client follows the switch (Sentinel announces it about a
    // second after promoting the replica; ioredis' failoverDetector followed 0.1–1.5 s after that);
    // without failoverDetector, until Sentinel demotes the old master 10 s later. So: nothing is lost
    // once a charge has landed on the new master (200 ms for answers still on the old connection),
    // and the client follows within FOLLOW of the announcement.
    const lostIds = new Set(lost.map((d) => d.id));
    const landed = run.app.decisions.filter(
      (d) => d.allowed && !d.degraded && d.at > run.promotedAt && !lostIds.has(d.id),
    );
    const followedAt = Math.min(...landed.map((d) => d.at));
    expect(followedAt - run.switchedAt, 'ms from the announcement to the first charge on the new master').toBeLessThan(
      FOLLOW,
    );
    expect(lostOutside(run, lost, run.faultAt - LAG, followedAt + 200)).toEqual([]);
    expect(ghost.filter((id) => !degradedIds.has(id))).toEqual([]);
  });

  it('kill -9 the master: no 5xx, bounded, back on the new master soon after the switch, nothing lost but the replica lag', async () => {
    await sentinel.waitForReplica(false);
    const evalsBefore = await evalCalls(sentinel);
    let oldMaster = 0;
    // The killed node comes back as a replica during the load, ready for the next test.
    const run = await underLoad(
      family,
      'kill',
      `kill${PREFIX[family]}`,
      1000 + 3000 + RECOVERY[family],
      RATE,
      async (old) => {
        oldMaster = old;
        await sentinel.restartAsReplica(old);
      },
    );
    const { lost, ghost, degradedIds } = await chargesOn(sentinel, `kill${PREFIX[family]}`, run.app.decisions);
    report(`${family}, kill -9`, run, lost, ghost.length);
    await sentinel.waitForReplica(false).catch(() => sentinel.restartAsReplica(oldMaster));
    await expectLikeOneNode(run, family, evalsBefore);
    // Replication is asynchronous: only an admission the replica had not received could be lost.
    expect(lostOutside(run, lost, run.faultAt - LAG, run.faultAt)).toEqual([]);
    // A call the limiter gave up on may still have run (under-admission), never an admitted one twice.
    expect(ghost.filter((id) => !degradedIds.has(id))).toEqual([]);
  });
});

describe('Sentinel with min-replicas-to-write 1 (issue 20)', () => {
  it('SENTINEL FAILOVER loses nothing after the promotion: the old master refuses writes once its replica leaves it', async () => {
    await sentinel.waitForReplica();
    const ports = [...sentinel.nodes.keys()];
    for (const port of ports) await sentinel.command(port, 'CONFIG', 'SET', 'min-replicas-to-write', '1');
    try {
      // The new master refuses writes too until it has a replica: Sentinel makes the old master one
      // within about 10 s of the switch; here the test does it 1 s after.
      const run = await underLoad('ioredis', 'failover', 'minreplicas', 7500, 100, async (old) => {
        await at(1000);
        await sentinel.demote(old);
      });
      const { lost, ghost, degradedIds } = await chargesOn(sentinel, 'minreplicas', run.app.decisions);
      report('ioredis, min-replicas-to-write 1, SENTINEL FAILOVER', run, lost, ghost.length);
      // Nothing after the promotion: only what the replica had not yet received.
      expect(lostOutside(run, lost, run.faultAt - LAG, run.promotedAt)).toEqual([]);
      expect(ghost.filter((id) => !degradedIds.has(id))).toEqual([]);
      expect(run.rejections).toEqual([]);
      expectAnswered(run);
      expectBounded(run.app, boundFor(TIMEOUT));
      expectDegradedWithin(run, run.switchedAt + 1000 + RECOVERY.ioredis);
      expect(run.app.storeErrors.filter((e) => /NOSCRIPT/i.test(String(e.error)))).toEqual([]);
    } finally {
      for (const port of ports) await sentinel.command(port, 'CONFIG', 'SET', 'min-replicas-to-write', '0');
    }
  });
});
