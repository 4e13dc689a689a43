import { fixedWindow, slidingWindow, tokenBucket } from '@floodgate/core';
import type { LayerCall } from '@floodgate/core/store';
import type { RegionalStore } from '@floodgate/regions';
import { describe, expect, it } from 'vitest';
import {
  alignedClock,
  drive,
  homeCount,
  keyHomedAt,
  poolUnits,
  REGIONS,
  type RegionName,
  untilWindowAt,
  useWorld,
} from './support.ts';

// The README's bound (packages/regions/README.md): every unit admitted anywhere was counted at the
// key's home first, so the world admits at most the limit per window, partitions included.
const world = useWorld();
const WINDOW = 60_000;

async function threeStores(clock: () => number, lease: { refresh?: number } = {}) {
  const w = world();
  const stores = await Promise.all(REGIONS.map((r) => w.store(r, { clock, lease })));
  return Object.fromEntries(REGIONS.map((r, i) => [r, stores[i]])) as Record<RegionName, RegionalStore>;
}

describe('RegionalStore: never over the limit', () => {
  it.each([
    ['fixedWindow', fixedWindow({ limit: 300, window: WINDOW }), 'count'],
    ['slidingWindow', slidingWindow({ limit: 300, window: WINDOW }), 'curr'],
  ] as const)(
    '%s: three regions racing on keys homed in each region admit at most the limit per key, every unit accounted for',
    async (_name, algorithm, field) => {
      world().delayAll(5);
      const stores = await threeStores(alignedClock(WINDOW, 1000));
      const keys = REGIONS.map((home) => keyHomedAt(stores.ap, home, `race-${algorithm.kind}`));
      const admitted = new Map<string, number>();
      await Promise.all(
        keys.flatMap((key) =>
          REGIONS.map(async (region) => {
            const call: LayerCall = { key, algorithm, cost: 1 };
            const n = await drive(stores[region], call, 250, 8);
            admitted.set(key, (admitted.get(key) ?? 0) + n);
          }),
        ),
      );
      await Promise.all(REGIONS.map((r) => stores[r].idle()));
      for (const key of keys) {
        const total = admitted.get(key) ?? 0;
        expect(total, key).toBeLessThanOrEqual(300);
        // Demand was 750: what was not admitted sits in pools (counted at the home, unspent).
        const home = world().admin(stores.ap.homeOf(key) as RegionName);
        const pooled = (await Promise.all(REGIONS.map((r) => poolUnits(world().admin(r), key)))).reduce(
          (a, b) => a + b,
        );
        // fixedWindow: the home counts the limit less the two other regions' allotments (7 each),
        // which every region claimed; slidingWindow has none.
        const allotted = algorithm.kind === 'fixedWindow' ? 2 * Math.floor((0.05 / 2) * 300) : 0;
        expect(await homeCount(home, key, field)).toBe(total + pooled - allotted);
        expect(total + pooled, key).toBe(300);
      }
    },
  );

  it('tokenBucket: three regions racing admit at most capacity + rate x elapsed', async () => {
    world().delayAll(5);
    const stores = await threeStores(Date.now, { refresh: 500 });
    const algorithm = tokenBucket({ capacity: 100, refillRate: 20 });
    const key = keyHomedAt(stores.ap, 'eu', 'bucket');
    const started = Date.now();
    const counts = await Promise.all(REGIONS.map((r) => drive(stores[r], { key, algorithm, cost: 1 }, 200, 8)));
    const elapsed = Date.now() - started;
    const total = counts.reduce((a, b) => a + b);
    expect(total).toBeLessThanOrEqual(100 + Math.floor((20 * elapsed) / 1000));
    // and it is not starved: at least the full bucket went out.
    expect(total).toBeGreaterThanOrEqual(90);
  });
});

describe('RegionalStore: window boundaries', () => {
  it('with each home on its Redis TIME (the default), one-second windows never admit over the limit, boundaries included', async () => {
    const w = world();
    w.delayAll(20);
    const stores = await Promise.all(REGIONS.map((r) => w.store(r, { clockSkew: 50 })));
    const window = 1000;
    const algorithm = fixedWindow({ limit: 60, window });
    const key = keyHomedAt(stores[0] as RegionalStore, 'eu', 'boundary');
    const perWindow = new Map<number, number>();
    const count = (outcome: { allowed: boolean; resetAt: number }) => {
      // resetAt is the home's window end moved into this clock: within a round trip of it.
      const end = Math.round(outcome.resetAt / window);
      if (outcome.allowed) perWindow.set(end, (perWindow.get(end) ?? 0) + 1);
    };
    await Promise.all(stores.map((store) => drive(store, { key, algorithm, cost: 1 }, 500, 8, count)));
    expect(perWindow.size).toBeGreaterThanOrEqual(2);
    for (const [end, admitted] of perWindow) expect(admitted, `window ending ${end * window}`).toBeLessThanOrEqual(60);
  });

  it('a request that leaves just before the window ends and reaches its home just after is counted in the next window, not in a fresh copy of the ended one', async () => {
    // The double count the bench found: decided on the sender's clock, such a request reached the
    // home after the window's state had expired (its TTL ends with the window, in Redis' time) and
    // started a new state for the window that had just ended, counting the limit a second time.
    const w = world();
    w.delayAll(150);
    const options = { lease: { allotment: 0 } };
    const eu = await w.store('eu', options);
    const us = await w.store('us', options);
    const window = 2000;
    const algorithm = fixedWindow({ limit: 10, window });
    const key = keyHomedAt(eu, 'eu', 'late-arrival');
    const call: LayerCall = { key, algorithm, cost: 1 };
    const windowOf = (resetAt: number) => Math.round(resetAt / window);
    // Early in a window, the home's own region spends the whole limit.
    await untilWindowAt(window, 100);
    const spent = await drive(eu, call, 20, 1);
    await eu.idle();
    expect(spent).toBe(10);
    const [last] = await eu.consume([call], 'eu-last');
    expect(last?.allowed).toBe(false);
    const ended = windowOf(last?.resetAt as number);
    // us asks 75 ms before the window ends; its request reaches the home 75 ms after.
    await untilWindowAt(window, window - 75);
    const [late] = await us.consume([call], 'us-late');
    expect(late?.allowed).toBe(true);
    expect(windowOf(late?.resetAt as number)).toBe(ended + 1);
  });
});

describe('RegionalStore: a partition', () => {
  it.each(['us', 'eu'] as const)(
    'cutting region us off (key homed in %s): the world stays within the limit during the cut and after it heals; a region cut off from the home spends only what it held',
    async (homeRegion) => {
      const w = world();
      w.delayAll(5);
      const stores = await threeStores(alignedClock(WINDOW, 1000));
      const algorithm = fixedWindow({ limit: 300, window: WINDOW });
      const key = keyHomedAt(stores.ap, homeRegion, `cut-${homeRegion}`);
      const call: LayerCall = { key, algorithm, cost: 1 };
      let total = 0;
      // Warm: every region holds a lease.
      for (const r of REGIONS) total += await drive(stores[r], call, 20, 2);
      await Promise.all(REGIONS.map((r) => stores[r].idle()));

      for (const link of w.linksOf('us')) link.cut();
      // The regions cut off from the home: us, or (when us is the home) the other two.
      const cutOff = homeRegion === 'us' ? (['ap', 'eu'] as const) : (['us'] as const);
      const held = await Promise.all(cutOff.map((r) => poolUnits(w.admin(r), key)));
      const before = cutOff.map((r) => stores[r].stats().unreachable);
      const during = await Promise.all(REGIONS.map((r) => drive(stores[r], call, 150, 6)));
      total += during.reduce((a, b) => a + b);
      for (const [i, r] of cutOff.entries()) {
        // A region that cannot reach the home spends only what it held when the link went down.
        expect(during[REGIONS.indexOf(r)], r).toBeLessThanOrEqual(held[i] as number);
        expect(stores[r].stats().unreachable, r).toBeGreaterThan(before[i] as number);
      }
      expect(total).toBeLessThanOrEqual(300);

      for (const link of w.linksOf('us')) link.heal();
      const after = await Promise.all(REGIONS.map((r) => drive(stores[r], call, 150, 6)));
      total += after.reduce((a, b) => a + b);
      expect(total).toBeLessThanOrEqual(300);
      await Promise.all(REGIONS.map((r) => stores[r].idle()));
      expect(await homeCount(w.admin(homeRegion), key)).toBeLessThanOrEqual(300);
    },
  );
});
