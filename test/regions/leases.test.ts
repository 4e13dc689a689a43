import { fixedWindow, tokenBucket } from '@floodgate/core';
import type { LayerCall } from '@floodgate/core/store';
import type { RegionalStore } from '@floodgate/regions';
import { describe, expect, it } from 'vitest';
import {
  alignedClock,
  drive,
  eventually,
  homeCount,
  keyHomedAt,
  manualClock,
  poolUnits,
  REGIONS,
  type RegionName,
  useWorld,
} from './support.ts';

const world = useWorld();
const WINDOW = 60_000;

describe('RegionalStore leases', () => {
  it('under 80% of the limit, at least 95% of decisions need no cross-region round trip', async () => {
    const w = world();
    w.delayAll(20);
    const clock = alignedClock(WINDOW, 1000);
    const stores = await Promise.all(REGIONS.map((r) => w.store(r, { clock })));
    const algorithm = fixedWindow({ limit: 3000, window: WINDOW });
    const key = keyHomedAt(stores[0] as never, 'us', 'share');
    const call: LayerCall = { key, algorithm, cost: 1 };
    let admitted = 0;
    // 2,100 requests (70% of the limit) in rounds of 10 per region; leases ahead land between rounds.
    for (let round = 0; round < 70; round++) {
      const counts = await Promise.all(stores.map((store) => drive(store, call, 10, 10)));
      admitted += counts.reduce((a, b) => a + b);
      await Promise.all(stores.map((store) => store.idle()));
    }
    expect(admitted).toBe(2100);
    const stats = stores.map((store) => store.stats());
    const local = stats.reduce((sum, s) => sum + s.local, 0);
    const remote = stats.reduce((sum, s) => sum + s.remote, 0);
    expect(local + remote).toBe(2100);
    expect(local / (local + remote)).toBeGreaterThanOrEqual(0.95);
  });

  it('a window lease ends with its window: units left in it are never handed out in the next', async () => {
    const w = world();
    w.delayAll(0);
    const clock = manualClock(1_800_000_000_000);
    const store = await w.store('ap', { clock: clock.now, lease: { size: 50, allotment: 0 } });
    const algorithm = fixedWindow({ limit: 1000, window: 10_000 });
    const key = keyHomedAt(store, 'eu', 'window-end');
    const call: LayerCall = { key, algorithm, cost: 1 };
    const [first] = await store.consume([call], 'a');
    expect(first?.allowed).toBe(true);
    await store.idle();
    expect(await poolUnits(w.admin('ap'), key)).toBe(49);
    const remoteBefore = store.stats().remote;
    clock.advance(10_000);
    const [next] = await store.consume([call], 'b');
    // The 49 units of the first window were not used: the home was asked, and counts the new lease.
    expect(store.stats().remote).toBe(remoteBefore + 1);
    expect(next?.resetAt).toBe(1_800_000_000_000 + 20_000);
    expect(await homeCount(w.admin('eu'), key)).toBe(50);
  });

  it('a bucket lease ends after `refresh` ms and spoils as the bucket drains', async () => {
    const w = world();
    const clock = manualClock(1_800_000_000_000);
    const store = await w.store('ap', { clock: clock.now, lease: { size: 10, refresh: 1000 } });
    const algorithm = tokenBucket({ capacity: 10, refillRate: 10 });
    const key = keyHomedAt(store, 'us', 'bucket-ttl');
    const call: LayerCall = { key, algorithm, cost: 1 };
    expect((await store.consume([call], 'a'))[0]?.allowed).toBe(true);
    await store.idle();
    const remote = store.stats().remote;
    // 500 ms later the bucket has drained 5 of the 10 leased tokens: at most 5 of the 9 left are usable.
    clock.advance(500);
    let allowed = 0;
    for (let i = 0; i < 9; i++) if ((await store.consume([call], `p${i}`))[0]?.allowed) allowed++;
    // 5 from the pool (what the bucket still held), the other 4 asked the home (which had refilled 5).
    expect(allowed).toBe(9);
    expect(store.stats().local).toBe(5);
    expect(store.stats().remote - remote).toBe(4);
    await store.idle();
    clock.advance(1000);
    const before = store.stats().remote;
    await store.consume([call], 'late');
    expect(store.stats().remote).toBe(before + 1);
  });

  it('an idle region gives its units back after one refresh interval; the busy one then reaches 95% of the limit', async () => {
    const w = world();
    w.delayAll(5);
    const clock = alignedClock(WINDOW, 1000);
    const list = await Promise.all(REGIONS.map((r) => w.store(r, { clock, lease: { size: 30, refresh: 200 } })));
    const stores = Object.fromEntries(REGIONS.map((r, i) => [r, list[i]])) as Record<RegionName, RegionalStore>;
    const algorithm = fixedWindow({ limit: 300, window: WINDOW });
    const key = keyHomedAt(stores.ap, 'eu', 'idle');
    const call: LayerCall = { key, algorithm, cost: 1 };
    let admitted = 0;
    for (const r of REGIONS) admitted += await drive(stores[r], call, 5, 1);
    await Promise.all(REGIONS.map((r) => stores[r].idle()));
    expect(await poolUnits(w.admin('ap'), key)).toBeGreaterThan(0);
    expect(await poolUnits(w.admin('us'), key)).toBeGreaterThan(0);
    // ap and us go quiet; their units go home within a refresh interval or two.
    const returned = await eventually(
      async () => (await poolUnits(w.admin('ap'), key)) + (await poolUnits(w.admin('us'), key)) === 0,
      2000,
    );
    expect(returned).toBe(true);
    await Promise.all(REGIONS.map((r) => stores[r].idle()));
    admitted += await drive(stores.eu, call, 400, 4);
    expect(admitted).toBeLessThanOrEqual(300);
    expect(admitted).toBeGreaterThanOrEqual(285);
  });

  it('a block in one region denies the key in every region; reset gives the full limit back', async () => {
    const w = world();
    w.delayAll(0);
    const clock = alignedClock(WINDOW, 1000);
    const stores = await Promise.all(REGIONS.map((r) => w.store(r, { clock })));
    const algorithm = fixedWindow({ limit: 30, window: WINDOW });
    const key = keyHomedAt(stores[0] as never, 'ap', 'block');
    const call: LayerCall = { key, algorithm, cost: 1 };
    for (const store of stores) expect(await drive(store, call, 5, 1)).toBe(5);
    await stores[0]?.block([call], 60_000);
    for (const store of stores) expect((await store.consume([call], 'x'))[0]?.allowed).toBe(false);
    await stores[1]?.unblock([call]);
    await stores[2]?.reset([call]);
    for (const store of stores) await store.idle();
    let admitted = 0;
    for (const store of stores) admitted += await drive(store, call, 20, 2);
    expect(admitted).toBe(30);
  });
});
