import { fixedWindow } from '@floodgate/core';
import type { LayerCall } from '@floodgate/core/store';
import { describe, expect, it } from 'vitest';
import { drive, homeCount, keyHomedAt, manualClock, poolUnits, REGIONS, type RegionName, useWorld } from './support.ts';

// Standing allotments (packages/regions/README.md, "Allotments"): each region other than a key's
// home may spend its allotment of every window without asking; the home hands out only the limit
// less every allotment, so the world stays within the limit, cut off or not.
const world = useWorld();
const WINDOW = 10_000;
// limit 100, three regions, default allotment 0.05 / 2 of the limit: 2 units per region per window.
const algorithm = fixedWindow({ limit: 100, window: WINDOW });
const ALLOTTED = 2;

describe('RegionalStore allotments', () => {
  it("a cold key's first request in a region other than its home is decided locally, from the allotment", async () => {
    const w = world();
    w.delayAll(30);
    const clock = manualClock(1_800_000_000_000);
    const store = await w.store('ap', { clock: clock.now });
    const key = keyHomedAt(store, 'eu', 'cold');
    const call: LayerCall = { key, algorithm, cost: 1 };
    const [first] = await store.consume([call], 'a');
    expect(first?.allowed).toBe(true);
    expect(store.stats()).toEqual({ local: 1, remote: 0, unreachable: 0 });
    // The claim started no lease ahead (a key this quiet never calls across regions); the home counted nothing.
    await store.idle();
    const leased = await homeCount(w.admin('eu'), key);
    expect(await poolUnits(w.admin('ap'), key)).toBe(ALLOTTED - 1 + leased);
    // A window later the same key is cold again: local again.
    clock.advance(WINDOW);
    const [next] = await store.consume([call], 'b');
    expect(next?.allowed).toBe(true);
    expect(store.stats().remote).toBe(0);
  });

  it('a region cut off from the home spends its allotment once per window (shared by its processes); the world never exceeds the limit, during the cut and after it heals', async () => {
    const w = world();
    w.delayAll(5);
    const clock = manualClock(1_800_000_000_000 + 20 * WINDOW);
    const options = { clock: clock.now, homeTimeout: 100, lease: { refresh: 60_000 } };
    const ap = await w.store('ap', options);
    const eu = await w.store('eu', options);
    // Two processes of region us.
    const us = [await w.store('us', options), await w.store('us', options)];
    const key = keyHomedAt(ap, 'eu', 'cut');
    const call: LayerCall = { key, algorithm, cost: 1 };
    const stores: Record<RegionName, (typeof ap)[]> = { ap: [ap], eu: [eu], us };
    const everyone = async () => {
      // us sends less: while cut off, each of its requests the pool cannot cover waits homeTimeout.
      const counts = await Promise.all(
        REGIONS.flatMap((r) => stores[r].map((store) => drive(store, call, r === 'us' ? 20 : 80, 4))),
      );
      await Promise.all(REGIONS.flatMap((r) => stores[r].map((store) => store.idle())));
      const pooled = await Promise.all(REGIONS.map((r) => poolUnits(w.admin(r), key)));
      return {
        total: counts.reduce((a, b) => a + b),
        us: (counts[2] as number) + (counts[3] as number),
        pooled: pooled.reduce((a, b) => a + b),
      };
    };

    for (const link of w.linksOf('us')) link.cut();
    for (let window = 0; window < 3; window++) {
      const admitted = await everyone();
      // us claimed its window's allotment once for both its processes, and nothing more.
      expect(admitted.us, `window ${window}`).toBe(ALLOTTED);
      // ap and eu took everything else (the home's 96 and ap's allotment), or hold it in their pools.
      expect(admitted.total, `window ${window}`).toBeLessThanOrEqual(100);
      expect(admitted.total + admitted.pooled, `window ${window}`).toBe(100);
      expect(await homeCount(w.admin('eu'), key)).toBe(100 - 2 * ALLOTTED);
      clock.advance(WINDOW);
    }

    for (const link of w.linksOf('us')) link.heal();
    for (let window = 0; window < 2; window++) {
      const admitted = await everyone();
      expect(admitted.total, `healed, window ${window}`).toBeLessThanOrEqual(100);
      expect(admitted.us, `healed, window ${window}`).toBeGreaterThanOrEqual(ALLOTTED);
      clock.advance(WINDOW);
    }
  });

  it('a block does not give a region a second allotment in the same window', async () => {
    const w = world();
    w.delayAll(0);
    const clock = manualClock(1_800_000_000_000 + 40 * WINDOW);
    // An allotment of 40 units each: the home hands out only 100 - 2 x 40 = 20.
    const store = await w.store('us', { clock: clock.now, lease: { allotment: 0.4 } });
    const key = keyHomedAt(store, 'ap', 'block-claim');
    const call: LayerCall = { key, algorithm, cost: 1 };
    expect(await drive(store, call, 10, 1)).toBe(10);
    expect(store.stats().remote).toBe(0);
    await store.block([call], 60_000);
    await store.unblock([call]);
    await store.idle();
    // What is left this window is the home's 20; the allotment stays spent (its 30 units went with the block).
    expect(await drive(store, call, 60, 1)).toBeLessThanOrEqual(20);
  });
});
