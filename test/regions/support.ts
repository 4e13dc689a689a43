import { RegionalStore, type RegionalStoreOptions } from '@floodgate/regions';
import type { LayerCall, LayerOutcome } from '@floodgate/core/store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.ts';
import { type RedisServer, startRedis } from '../helpers/redis-server.ts';
import { ready, tunedClient } from '../resilience/support.ts';

export const REGIONS = ['ap', 'eu', 'us'] as const;
export type RegionName = (typeof REGIONS)[number];

/**
 * Three regions: one redis-server each, and a fault proxy on every cross-region link (from the
 * processes of region `from` to the Redis of region `to`), so a test can delay or cut each link.
 */
export interface World {
  servers: Record<RegionName, RedisServer>;
  /** links[from][to], for from !== to. */
  links: Record<RegionName, Partial<Record<RegionName, FaultProxy>>>;
  /** Every proxy on a link from or to `region`. */
  linksOf(region: RegionName): FaultProxy[];
  /** A direct client to a region's Redis, for reading state in tests. */
  admin(region: RegionName): Redis;
  /** A store for region `region` whose clients reach the other regions through the links (all connected). */
  store(region: RegionName, options?: Partial<RegionalStoreOptions>): Promise<RegionalStore>;
  /** Delays every cross-region link by `ms` each way. */
  delayAll(ms: number): void;
}

export function useWorld(): () => World {
  let world: World | undefined;
  const clients: Redis[] = [];
  const stores: RegionalStore[] = [];
  beforeAll(async () => {
    const servers = Object.fromEntries(
      await Promise.all(REGIONS.map(async (name) => [name, await startRedis()] as const)),
    ) as Record<RegionName, RedisServer>;
    const links = Object.fromEntries(REGIONS.map((name) => [name, {}])) as World['links'];
    for (const from of REGIONS) {
      for (const to of REGIONS) if (from !== to) links[from][to] = await startFaultProxy(servers[to].port);
    }
    const admins = new Map<RegionName, Redis>();
    world = {
      servers,
      links,
      linksOf: (region) =>
        REGIONS.flatMap((other) =>
          other === region ? [] : [links[region][other] as FaultProxy, links[other][region] as FaultProxy],
        ),
      admin(region) {
        let admin = admins.get(region);
        if (admin === undefined) {
          admin = new Redis({ host: '127.0.0.1', port: servers[region].port, maxRetriesPerRequest: 0 });
          admins.set(region, admin);
          clients.push(admin);
        }
        return admin;
      },
      async store(region, options = {}) {
        const regions = Object.fromEntries(
          REGIONS.map((to) => {
            const port = to === region ? servers[to].port : (links[region][to] as FaultProxy).port;
            const client = tunedClient(port, { commandTimeout: 5000 });
            clients.push(client);
            return [to, client];
          }),
        );
        await Promise.all(Object.values(regions).map((client) => ready(client)));
        const store = new RegionalStore({ region, regions, homeTimeout: 1000, clockSkew: 0, ...options });
        stores.push(store);
        return store;
      },
      delayAll(ms) {
        for (const from of REGIONS) for (const link of Object.values(links[from])) link?.delay(ms, ms);
      },
    };
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close().catch(() => undefined)));
    for (const client of clients) client.disconnect();
    if (world === undefined) return;
    for (const from of REGIONS) for (const link of Object.values(world.links[from])) await link?.close();
    await Promise.all(REGIONS.map((name) => world?.servers[name].stop()));
  });
  return () => {
    if (world === undefined) throw new Error('the regions have not started');
    return world;
  };
}

/** A clock that starts `start` ms into an aligned window of `window` ms and then follows real time. */
export function alignedClock(window: number, start = 0): () => number {
  const base = Date.now();
  const aligned = base - (base % window) + window;
  return () => aligned + start + (Date.now() - base);
}

/**
 * Resolves when the machine clock (which every redis-server here also reads for TIME) is `at` ms
 * into a window of `window` ms: this one's if still ahead, else the next one's.
 */
export async function untilWindowAt(window: number, at: number): Promise<void> {
  const now = Date.now();
  const start = now - (now % window);
  const due = start + at > now ? start + at : start + window + at;
  await new Promise((resolve) => setTimeout(resolve, due - now));
}

/** A clock the test moves by hand. */
export function manualClock(start: number): { now: () => number; advance(ms: number): void } {
  let at = start;
  return {
    now: () => at,
    advance(ms) {
      at += ms;
    },
  };
}

/** A key whose home (by the default placement) is `home`. */
export function keyHomedAt(store: RegionalStore, home: RegionName, tag: string): string {
  for (let i = 0; ; i++) {
    const key = `fg:ip:${tag}:{${i}}`;
    if (store.homeOf(key) === home) return key;
  }
}

/** Sends `total` requests on `key` through `store`, `concurrency` at a time; counts the admitted ones. */
export async function drive(
  store: RegionalStore,
  call: LayerCall,
  total: number,
  concurrency: number,
  onOutcome?: (outcome: LayerOutcome) => void,
): Promise<number> {
  let admitted = 0;
  let sent = 0;
  let n = 0;
  const worker = async () => {
    while (sent < total) {
      sent++;
      const [outcome] = await store.consume([call], `r${n++}`);
      if (outcome?.allowed) admitted++;
      if (outcome) onOutcome?.(outcome);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return admitted;
}

/** Units a region's pool holds for `key` now (0 when it has none). */
export async function poolUnits(admin: Redis, key: string): Promise<number> {
  return Number((await admin.hget(`rg.pool:${key}`, 'u')) ?? 0);
}

/** The count the home holds for a fixed window key (0 when it has none). */
export async function homeCount(admin: Redis, key: string, field = 'count'): Promise<number> {
  return Number((await admin.hget(`rg:${key}`, field)) ?? 0);
}

/** Waits until `check` holds, polling every 20 ms, for at most `ms`; false if it never did. */
export async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}
