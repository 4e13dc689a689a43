import { StoreError } from '@floodgate/core';
import { Deadlines, usableLimit } from '@floodgate/core/store';
import { RedisStore, redisClientAdapter } from '@floodgate/redis';
import { LRUCache } from 'lru-cache';
import { allotmentOf, claimArgs, mergeOffset } from './allotment';
import { rendezvousHome } from './home';
import { isWindow, LEASED_KINDS, leaseTerms, nearTerms } from './lease-terms';
import { parseRegionalOptions } from './options';
import { giveBackScript, poolScript, timeScript } from './scripts';
import type { Allotment, ClockOffset } from './allotment';
import type { LayerCall, LayerOutcome, Store } from '@floodgate/core/store';
import type { RedisClientAdapter } from '@floodgate/redis';
import type { LeaseTerms } from './lease-terms';
import type { RegionalConfig, RegionalStoreOptions } from './options';

/** Window keys whose pools this process filled, watched so that idle ones give their units back. */
const MAX_WATCHED = 10_000;
/** A pool that keeps running dry doubles its lease size, up to this many times the base. */
const MAX_BOOST = 16;
/** Idle pools a sweep looks at concurrently. */
const SWEEP_BATCH = 64;

/** One region: its Redis for pools (script calls) and for the global budgets it is home of (RedisStore). */
interface Region {
  readonly name: string;
  readonly adapter: RedisClientAdapter;
  readonly budgets: RedisStore;
}

/** How many decisions needed a round trip to another region, and how many found the home out of reach. */
export interface RegionalStats {
  /** Decided with this region's Redis alone (the pool, or a home in this region). */
  local: number;
  /** Decided after a synchronous call to a home in another region. */
  remote: number;
  /** Denied because the pool was short and the home could not be reached in `homeTimeout`. */
  unreachable: number;
}

/** What a layer took, to put back when another layer denies the request. */
type Taken = { from: 'pool'; windowEnd: number } | { from: 'home'; home: Region } | undefined;

interface Watched {
  call: LayerCall;
  home: Region;
  usedAt: number;
}

/** The pool script's answer to a take or a look: status (1 taken, 0 short, -1 blocked), then numbers. */
type PoolReply = [status: number, units: number, near: number, remaining: number, resetAt: number, windowEnd: number];

/**
 * One limit per key across regions. Each region decides from its own Redis; a key's global budget
 * lives at its home region, which hands it out in leases. A region spends its leased units locally
 * (one round trip to its own Redis), leases more ahead of need while the key is far from its limit,
 * and asks the home for exactly each request's cost once the home has handed out `threshold` of the
 * limit. Every unit admitted anywhere was first counted at the home, so the world never admits
 * more than the home's algorithm allows (see the README for the bound and its proof).
 *
 * @example
 * const store = new RegionalStore({ region: 'eu', regions: { eu: euRedis, us: usRedis, ap: apRedis } });
 */
export class RegionalStore implements Store {
  readonly region: string;
  readonly #config: RegionalConfig;
  readonly #local: Region;
  readonly #regions: Map<string, Region>;
  readonly #deadlines: Deadlines;
  readonly #homeDeadlines: Deadlines;
  /** Per key, the lease ahead this process is taking now. */
  readonly #filling = new Map<string, Promise<unknown>>();
  /** Per key, how many times the base lease size this process asks for (its pool ran dry under load). */
  readonly #boost = new Map<string, number>();
  /** Work done off the request's path (leases ahead, marks, give-backs), for idle(). */
  readonly #background = new Set<Promise<unknown>>();
  readonly #watched = new LRUCache<string, Watched>({ max: MAX_WATCHED });
  readonly #stats: RegionalStats = { local: 0, remote: 0, unreachable: 0 };
  /** Per algorithm, its allotment per region and the algorithm its home decides with. */
  readonly #allotments = new WeakMap<object, Allotment>();
  /** Per region, what this process knows of its Redis' clock (the homes decide on it). */
  readonly #offsets = new Map<string, ClockOffset>();
  readonly #sweeper: ReturnType<typeof setInterval>;
  #closed = false;
  #sweeping = false;

  constructor(options: RegionalStoreOptions) {
    this.#config = parseRegionalOptions(options);
    const { region, regions, names, prefix, homeClock, homeTimeout, sink } = this.#config;
    this.region = region;
    this.#regions = new Map(
      names.map((name) => [
        name,
        {
          name,
          adapter: redisClientAdapter(regions[name]),
          budgets: new RedisStore({
            client: regions[name] as never,
            prefix,
            clock: homeClock,
            timeout: homeTimeout,
            onWarning: sink,
          }),
        },
      ]),
    );
    this.#local = this.#regions.get(region) as Region;
    this.#deadlines = new Deadlines(this.#config.timeout);
    this.#homeDeadlines = new Deadlines(homeTimeout);
    if (homeClock !== 'server') for (const name of names) this.#offsets.set(name, { lo: 0, hi: 0 });
    else this.#track(this.#probeClocks());
    this.#sweeper = setInterval(
      () => {
        // One sweep at a time: a long one (thousands of idle pools) is not joined by the next.
        if (!this.#sweeping) {
          this.#sweeping = true;
          const sweep = this.#sweep(this.#config.refresh).finally(() => {
            this.#sweeping = false;
          });
          this.#track(sweep);
        }
        if (homeClock === 'server') this.#track(this.#probeClocks());
      },
      // Checked twice per refresh: an idle pool goes back within 1.5 refresh intervals.
      Math.max(1, Math.floor(this.#config.refresh / 2)),
    );
    this.#sweeper.unref?.();
  }

  /** Counts since this store was made (a copy). */
  stats(): RegionalStats {
    return { ...this.#stats };
  }

  /** Resolves once no lease ahead, mark or give-back started so far is still on its way. */
  async idle(): Promise<void> {
    while (this.#background.size > 0) await Promise.all(this.#background);
  }

  /** The region holding `key`'s global budget. */
  homeOf(key: string): string {
    return this.#home(key).name;
  }

  get readyCount(): number | undefined {
    return this.#local.budgets.readyCount;
  }

  async consume(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]> {
    const now = this.#config.clock();
    const taken: Taken[] = new Array(calls.length);
    const outcomes = await Promise.all(calls.map((call, i) => this.#decide(call, requestId, now, taken, i)));
    const denied = calls.some((call, i) => call.shadow !== true && !(outcomes[i] as LayerOutcome).allowed);
    if (denied) {
      await Promise.all(calls.map((call, i) => this.#putBack(call, requestId, taken[i], now)));
      await Promise.all(
        calls.map((call, i) =>
          call.penalty !== undefined && call.shadow !== true && !(outcomes[i] as LayerOutcome).allowed
            ? this.#pool('b', call.key, [now, call.penalty.duration]).catch(() => undefined)
            : undefined,
        ),
      );
    }
    return outcomes;
  }

  /** Gives units back to this region's pool (leased layers) or to the home (the others). */
  async refund(calls: readonly LayerCall[], requestId: string): Promise<void> {
    const now = this.#config.clock();
    await Promise.all(
      calls.map((call) =>
        LEASED_KINDS.has(call.algorithm.kind)
          ? this.#pool('p', call.key, [now, call.cost, 0])
          : this.#home(call.key).budgets.refund([call], requestId),
      ),
    );
  }

  /** This region's pool plus what the home would still lease; the home's answer alone for the other algorithms. */
  async peek(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]> {
    const now = this.#config.clock();
    return Promise.all(
      calls.map(async (call) => {
        const home = this.#home(call.key);
        const asked: LayerCall = { key: call.key, algorithm: this.#allotment(call).home, cost: call.cost };
        if (call.critical !== undefined) asked.critical = call.critical;
        const atHome = await home.budgets.peek([asked], requestId).then(
          (outcomes) => outcomes[0],
          () => undefined,
        );
        if (!LEASED_KINDS.has(call.algorithm.kind)) return atHome ?? this.#unreachable(call, now, 0, 0);
        const [status, units, , , resetAt] = (await this.#pool('l', call.key, [now, 0])) as PoolReply;
        const limit = usableLimit(call.algorithm, call.critical);
        if (status === -1) return blocked(limit, now, units);
        if (atHome === undefined) {
          const allowed = units >= call.cost;
          return allowed ? allow(limit, units, resetAt || now) : this.#unreachable(call, now, units, resetAt);
        }
        const remaining = Math.min(limit, atHome.remaining + units);
        return { ...atHome, limit, allowed: units >= call.cost || atHome.allowed, remaining };
      }),
    );
  }

  /**
   * Deletes every region's pool and block of the layers' keys, then the home's state. Rejects
   * (resetting nothing at the home) when a region cannot be reached: units it holds would
   * otherwise be spent on top of a fresh budget.
   */
  async reset(calls: readonly LayerCall[]): Promise<void> {
    await this.#everyRegion('reset', calls, (region, call) => this.#poolAt(region, 'x', call.key, [0]));
    await Promise.all(calls.map((call) => this.#home(call.key).budgets.reset([call])));
  }

  /** Blocks the keys in every region (their pools are dropped) and at the home; rejects if a region missed it. */
  async block(calls: readonly LayerCall[], duration: number): Promise<void> {
    await Promise.all(calls.map((call) => this.#home(call.key).budgets.block([call], duration)));
    await this.#everyRegion('block', calls, (region, call) => this.#poolAt(region, 'b', call.key, [0, duration]));
  }

  /** Lifts the blocks in every region and at the home. */
  async unblock(calls: readonly LayerCall[]): Promise<void> {
    await Promise.all(calls.map((call) => this.#home(call.key).budgets.unblock([call])));
    await this.#everyRegion('unblock', calls, (region, call) => this.#poolAt(region, 'u', call.key, [0]));
  }

  /** Gives every idle window unit this process leased back to its home; stops leasing ahead. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    await this.#sweep(0);
  }

  async #decide(call: LayerCall, id: string, now: number, taken: Taken[], i: number): Promise<LayerOutcome> {
    const home = this.#home(call.key);
    if (!LEASED_KINDS.has(call.algorithm.kind)) {
      this.#count(home);
      const outcome = await this.#ask(home, call, call.cost, id);
      if (outcome === undefined) return this.#unreachable(call, now, 0, 0);
      if (outcome.allowed) taken[i] = { from: 'home', home };
      return outcome;
    }
    const reply = (await this.#pool('t', call.key, this.#takeArgs(call, home, now))) as PoolReply;
    const [status, units, near, remaining, resetAt, windowEnd] = reply;
    const limit = usableLimit(call.algorithm, call.critical);
    if (status === -1) return blocked(limit, now, units);
    if (status > 0) {
      this.#stats.local++;
      taken[i] = { from: 'pool', windowEnd };
      // A pool holding no more than its allotment is never given back: no need to watch it yet.
      if (isWindow(call)) this.#watch(call, home, now, status === 1);
      // Not on the claim of an allotment: a key that sees no more than it this window never calls across regions.
      if (status === 1 && near === 0 && units <= this.#lowWater(call)) this.#refill(call, home, id);
      return allow(limit, Math.min(limit, remaining + units), resetAt);
    }
    if (near === 0) {
      // The pool ran dry before its lease ahead landed: lease more at a time from now on, and wait
      // for the lease on its way rather than ask the home a second time.
      const filling = this.#filling.get(call.key);
      if (filling !== undefined) {
        this.#grow(call);
        await filling;
        const again = (await this.#pool('t', call.key, [now, call.cost])) as PoolReply;
        if (again[0] === 1) {
          this.#count(home);
          taken[i] = { from: 'pool', windowEnd: again[5] };
          if (isWindow(call)) this.#watch(call, home, now);
          return allow(limit, Math.min(limit, again[3] + again[1]), again[4]);
        }
        if (again[0] === -1) return blocked(limit, now, again[1]);
      }
    }
    return this.#askHome(call, home, id, now, units, near === 1, taken, i);
  }

  /** The take's arguments: with this window's allotment to claim when the home is elsewhere and the window is sure. */
  #takeArgs(call: LayerCall, home: Region, now: number): number[] {
    if (home === this.#local || call.algorithm.kind !== 'fixedWindow') return [now, call.cost];
    const allotment = this.#allotment(call);
    const offset = this.#offsets.get(home.name);
    if (allotment.units === 0 || offset === undefined) return [now, call.cost];
    const { window } = call.algorithm;
    const homeRemaining = usableLimit(allotment.home, false);
    return (
      claimArgs(now, call.cost, allotment.units, window, offset, this.#config.clockSkew, homeRemaining) ?? [
        now,
        call.cost,
      ]
    );
  }

  #allotment(call: LayerCall): Allotment {
    return allotmentOf(call, this.#config.allotment, this.#config.names.length, this.#allotments);
  }

  /** Samples every other region's Redis clock (TIME) and narrows what this process knows of it. */
  async #probeClocks(): Promise<void> {
    const { clock } = this.#config;
    await Promise.all(
      [...this.#regions.values()].map(async (region) => {
        if (region === this.#local) return;
        try {
          const sent = clock();
          const [seconds, micros] = (await this.#homeDeadlines.watch(timeScript.run(region.adapter, [], []))) as [
            string | number,
            string | number,
          ];
          const received = clock();
          const at = Number(seconds) * 1000 + Number(micros) / 1000;
          const sample = { lo: Math.floor(at - received), hi: Math.ceil(at - sent) };
          this.#offsets.set(region.name, mergeOffset(this.#offsets.get(region.name), sample));
        } catch {
          // Not known yet (or the region is out of reach): no allotment is claimed for its keys.
        }
      }),
    );
  }

  #grow(call: LayerCall): void {
    const boost = this.#boost.get(call.key) ?? 1;
    if (boost >= MAX_BOOST) return;
    this.#boost.delete(call.key);
    if (this.#boost.size >= MAX_WATCHED) this.#boost.delete(this.#boost.keys().next().value as string);
    this.#boost.set(call.key, boost * 2);
  }

  /** The pool is short: the home decides now, for this request's cost plus a lease ahead unless near the limit. */
  async #askHome(
    call: LayerCall,
    home: Region,
    id: string,
    now: number,
    units: number,
    near: boolean,
    taken: Taken[],
    i: number,
  ): Promise<LayerOutcome> {
    this.#count(home);
    const ahead = near || call.critical === true || this.#closed ? 0 : this.#leaseSize(call);
    const filling = this.#decideAtHome(call, home, id, now, units, near, ahead, taken, i);
    if (ahead === 0 || this.#filling.has(call.key)) return filling;
    // This request leases ahead for the others: those that find the pool empty meanwhile wait for it.
    const settled = filling.then(
      () => undefined,
      () => undefined,
    );
    this.#filling.set(call.key, settled);
    void settled.then(() => {
      if (this.#filling.get(call.key) === settled) this.#filling.delete(call.key);
    });
    return filling;
  }

  async #decideAtHome(
    call: LayerCall,
    home: Region,
    id: string,
    now: number,
    units: number,
    near: boolean,
    ahead: number,
    taken: Taken[],
    i: number,
  ): Promise<LayerOutcome> {
    let size = Math.max(call.cost, ahead);
    let leasedAt = this.#config.clock();
    let granted = await this.#ask(home, call, size, id);
    if (granted !== undefined && !granted.allowed && size > call.cost) {
      // Too little left for a lease ahead: the home is near the limit; take exactly the cost.
      size = call.cost;
      leasedAt = this.#config.clock();
      granted = await this.#ask(home, call, size, id);
    }
    const answeredAt = this.#config.clock();
    const limit = usableLimit(call.algorithm, call.critical);
    if (granted === undefined) return this.#unreachable(call, now, units, 0);
    if (!granted.allowed) {
      if (!near)
        this.#track(this.#mark(call, nearTerms(call, now, this.#config.refresh, this.#config.clockSkew), granted));
      return { ...granted, remaining: Math.min(limit, granted.remaining + units) };
    }
    const terms = leaseTerms(call, granted, size, leasedAt, answeredAt, this.#config.refresh, this.#config.clockSkew);
    const rest = size - call.cost;
    const nearNow = this.#isNear(call, granted);
    if (rest > 0 || nearNow !== near) await this.#add(call.key, terms, rest, granted, nearNow).catch(() => undefined);
    taken[i] = { from: 'pool', windowEnd: terms.windowEnd };
    if (isWindow(call)) this.#watch(call, home, now);
    return allow(limit, Math.min(limit, granted.remaining + rest), granted.resetAt);
  }

  /** Takes a lease ahead of need, once at a time per key in this process; the request does not wait. */
  #refill(call: LayerCall, home: Region, id: string): void {
    if (this.#closed || this.#filling.has(call.key)) return;
    const size = this.#leaseSize(call);
    const leasedAt = this.#config.clock();
    const filling = this.#ask(home, call, size, id)
      .then(async (granted) => {
        if (granted === undefined) return;
        if (!granted.allowed) {
          await this.#mark(call, nearTerms(call, leasedAt, this.#config.refresh, this.#config.clockSkew), granted);
          return;
        }
        const { refresh, clockSkew, clock } = this.#config;
        const terms = leaseTerms(call, granted, size, leasedAt, clock(), refresh, clockSkew);
        await this.#add(call.key, terms, size, granted, this.#isNear(call, granted));
      })
      .catch(() => undefined)
      .finally(() => this.#filling.delete(call.key));
    this.#filling.set(call.key, filling);
    this.#track(filling);
  }

  #track(work: Promise<unknown>): void {
    this.#background.add(work);
    const done = () => this.#background.delete(work);
    work.then(done, done);
  }

  /** The home's decision on `size` units of `call`, or undefined when it cannot be reached in time. */
  #ask(home: Region, call: LayerCall, size: number, id: string): Promise<LayerOutcome | undefined> {
    const algorithm = this.#allotment(call).home;
    const lease: LayerCall = { key: call.key, algorithm, cost: size, critical: call.critical };
    return home.budgets.consume([lease], id).then(
      (outcomes) => outcomes[0],
      () => undefined,
    );
  }

  #add(key: string, terms: LeaseTerms, units: number, granted: LayerOutcome, near: boolean): Promise<unknown> {
    const t = terms;
    return this.#pool('a', key, [
      this.#config.clock(),
      units,
      t.endsAt,
      t.windowEnd,
      granted.resetAt,
      t.level,
      t.leasedAt,
      t.unitsPerCost,
      t.drainPerMs,
      granted.remaining,
      near ? 1 : 0,
    ]);
  }

  /** Records that the home is near the limit: no lease ahead until the window (or bucket lease) ends. */
  #mark(call: LayerCall, terms: LeaseTerms, answer: LayerOutcome): Promise<unknown> {
    return this.#add(call.key, terms, 0, { ...answer, remaining: 0 }, true).catch(() => undefined);
  }

  async #putBack(call: LayerCall, id: string, taken: Taken, now: number): Promise<void> {
    try {
      if (taken === undefined) return;
      if (taken.from === 'pool') await this.#pool('p', call.key, [now, call.cost, taken.windowEnd]);
      else await taken.home.budgets.refund([call], id);
    } catch {
      // The units stay counted: fewer admitted, never more.
    }
  }

  #isNear(call: LayerCall, granted: LayerOutcome): boolean {
    const limit = usableLimit(call.algorithm, false);
    return granted.remaining <= limit * (1 - this.#config.threshold);
  }

  /**
   * The lease size: the option's (or its default), times the key's boost in this process, at most
   * a share of what lies above the threshold such that every region's pool (up to one and a half
   * leases) together hold no more than that (and never below the option's).
   */
  #leaseSize(call: LayerCall): number {
    const limit = usableLimit(call.algorithm, false);
    const { size, threshold, names } = this.#config;
    const units = size === undefined ? (limit * (1 - threshold)) / (2 * names.length) : size < 1 ? limit * size : size;
    const base = Math.max(1, Math.min(limit, Math.floor(units)));
    const boost = this.#boost.get(call.key);
    if (boost === undefined) return base;
    return Math.max(base, Math.min(base * boost, Math.floor((limit * (1 - threshold)) / (1.5 * names.length))));
  }

  /**
   * Lease ahead once the pool is down to this: a whole lease for windows (the next one has a pool's
   * worth of requests to arrive in), a quarter for buckets (their leftovers spoil).
   */
  #lowWater(call: LayerCall): number {
    const size = this.#leaseSize(call);
    return isWindow(call) ? size : Math.floor(size / 4);
  }

  #count(home: Region): void {
    if (home === this.#local) this.#stats.local++;
    else this.#stats.remote++;
  }

  #unreachable(call: LayerCall, now: number, units: number, resetAt: number): LayerOutcome {
    this.#stats.unreachable++;
    const limit = usableLimit(call.algorithm, call.critical);
    const retryAfter = this.#config.refresh;
    return {
      allowed: false,
      limit,
      remaining: Math.min(limit, units),
      resetAt: resetAt || now + retryAfter,
      retryAfter,
      delay: 0,
    };
  }

  #home(key: string): Region {
    const { home, names } = this.#config;
    const name = home === undefined ? rendezvousHome(names, key) : home(key);
    const region = this.#regions.get(name);
    if (region !== undefined) return region;
    this.#config.warn(
      'WARN_FLOODGATE_REGIONS_HOME',
      `RegionalStore.home returned ${JSON.stringify(String(name)).slice(0, 80)}, not a region name; the default placement is used`,
    );
    return this.#regions.get(rendezvousHome(names, key)) as Region;
  }

  #watch(call: LayerCall, home: Region, now: number, add = true): void {
    const watched = this.#watched.get(call.key);
    if (watched !== undefined) watched.usedAt = now;
    else if (add) this.#watched.set(call.key, { call, home, usedAt: now });
  }

  /** Idle window pools (nothing taken for `idle` ms) give their units back to their home, while their window lasts. */
  async #sweep(idle: number): Promise<void> {
    const now = this.#config.clock();
    const due: [string, Watched][] = [];
    for (const [key, watched] of this.#watched.entries()) if (now - watched.usedAt >= idle) due.push([key, watched]);
    // A few at a time: thousands of pool calls at once would queue ahead of requests on this region's Redis.
    for (let at = 0; at < due.length; at += SWEEP_BATCH)
      await this.#giveBack(due.slice(at, at + SWEEP_BATCH), now, idle);
  }

  async #giveBack(due: readonly [string, Watched][], now: number, idle: number): Promise<void> {
    await Promise.all(
      due.map(async ([key, { call, home }]) => {
        this.#watched.delete(key);
        this.#boost.delete(key);
        try {
          const least = home === this.#local ? 0 : this.#allotment(call).units;
          const [units, windowEnd, held, usedAt] = (await this.#pool('d', key, [now, idle, least])) as [
            number,
            number,
            number,
            number,
          ];
          if (units === 0) {
            // Used since (by another process of the region, or a lease that landed): look again later.
            if (held > 0) this.#watched.set(key, { call, home, usedAt });
            return;
          }
          const { kind, window } = call.algorithm;
          const field = kind === 'fixedWindow' ? 'count' : 'curr';
          await this.#homeDeadlines.watch(
            giveBackScript.run(home.adapter, [`${this.#config.prefix}:${key}`], [windowEnd - window, units, field]),
          );
        } catch {
          // Units that did not make it back stay counted at the home: fewer admitted, never more.
        }
      }),
    );
  }

  #pool(op: string, key: string, args: readonly number[]): Promise<unknown> {
    return this.#poolAt(this.#local, op, key, args);
  }

  /** One pool script call in `region`'s Redis, under this store's deadline; failures are StoreErrors. */
  #poolAt(region: Region, op: string, key: string, args: readonly number[]): Promise<unknown> {
    if (typeof key !== 'string' || key === '' || key.length > 1024) {
      return Promise.reject(new StoreError(`RegionalStore: a layer key must be a string of 1-1024 characters`));
    }
    const { prefix } = this.#config;
    const keys = [`${prefix}.pool:${key}`, `${prefix}.block:${key}`];
    const call = poolScript.run(region.adapter, keys, [op, ...args]);
    return this.#deadlines.watch(call).catch((error: unknown) => {
      throw new StoreError(`RegionalStore: region ${region.name} did not answer (${messageOf(error)})`, {
        cause: error,
      });
    });
  }

  /** Runs `each` for every layer in every region; rejects naming the regions that missed it. */
  async #everyRegion(
    what: string,
    calls: readonly LayerCall[],
    each: (region: Region, call: LayerCall) => Promise<unknown>,
  ): Promise<void> {
    const missed: string[] = [];
    await Promise.all(
      [...this.#regions.values()].map(async (region) => {
        try {
          await Promise.all(calls.map((call) => each(region, call)));
        } catch {
          missed.push(region.name);
        }
      }),
    );
    if (missed.length > 0) {
      throw new StoreError(`RegionalStore.${what}: region ${missed.sort().join(', ')} could not be reached`);
    }
  }
}

function allow(limit: number, remaining: number, resetAt: number): LayerOutcome {
  return { allowed: true, limit, remaining, resetAt, retryAfter: 0, delay: 0 };
}

function blocked(limit: number, now: number, pttl: number): LayerOutcome {
  return { allowed: false, limit, remaining: 0, resetAt: now + pttl, retryAfter: pttl, delay: 0 };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
