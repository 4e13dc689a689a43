import { LRUCache } from 'lru-cache';
import type { LeaseConfig } from './rules';
import type { LayerCall, LayerOutcome } from '../store/store';

/** Hot keys leased at once per limiter; a pool pushed out gives its units back. */
const MAX_POOLS = 10_000;

/** What the lease book needs from its limiter: a store call for one layer, and a refund. */
export interface LeaseSource {
  /** Takes `call.cost` units in the store; the outcome, or undefined when the store could not answer. */
  take(call: LayerCall): Promise<LayerOutcome | undefined>;
  /** Gives units back to the store; never rejects. */
  giveBack(call: LayerCall, units: number): Promise<void>;
}

/**
 * Units one instance took from the store for one key, handed out here until they run out or the
 * lease ends. `remaining` and `resetAt` are the store's answer when they were taken.
 */
export class LeasePool {
  units = 0;
  remaining = 0;
  resetAt = 0;
  /** When the units may no longer be handed out (the lease's ttl, or a fixed window's end). */
  endsAt = 0;
  /** While the store last refused a lease, requests go to the store one by one (exact at the tail). */
  refusedUntil = 0;
  /** The store call taking a lease, while it runs: true once it answered, false if it could not. */
  filling: Promise<boolean> | undefined = undefined;
  /** Set once the pool left the book (dropped, evicted, closed): a lease landing then goes straight back. */
  detached = false;
  /** Counts the leases taken into this pool: units handed out under one are never put back into another. */
  generation = 0;
  /**
   * Buckets: a lower bound of the bucket's level (in its internal units) just after the lease, and
   * when it was taken. A leased token is worth something only while the bucket still holds it: once
   * the level has drained below the pool, the rest of the pool is dropped, never handed out (that
   * would add to a burst the bucket already refilled for) nor given back (that would lower a level
   * made of other requests).
   */
  level = 0;
  leasedAt = 0;

  constructor(readonly call: LayerCall) {}
}

/** Where a request's leased units came from, to put them back if they go unused. */
export interface LeaseTicket {
  pool: LeasePool;
  generation: number;
  /** The store's reset when the lease was taken (a fixed window's end). */
  resetAt: number;
  /** A bucket's level after the lease, and when it was taken (see LeasePool.level). */
  level: number;
  leasedAt: number;
}

/**
 * Leases for rules with `lease: { size, ttl }`: each instance takes `size` units of a hot key in
 * one store call and hands them out itself. The shared limit holds (leased units are already
 * counted); what it trades is fairness between instances: up to `size` units per instance may sit
 * unused in a pool until they are given back, so the instances together may admit up to
 * `size × instances` fewer than the limit while the pools are full. Unused units go back to the
 * store when the lease ends (noticed by the next request on the key) and on `close()`.
 *
 * Fixed windows: units taken in one window are never handed out or given back in the next (they
 * were counted in the window they were taken in). Buckets: a token given back at any time is
 * exactly a token not spent.
 */
export class LeaseBook {
  readonly #pools: LRUCache<string, LeasePool>;
  #closed = false;

  constructor(
    private readonly source: LeaseSource,
    private readonly clock: () => number,
  ) {
    this.#pools = new LRUCache({
      max: MAX_POOLS,
      dispose: (pool, _key, reason) => {
        if (reason === 'set') return;
        pool.detached = true;
        void this.#release(pool, this.clock());
      },
    });
  }

  /**
   * Hands out `call.cost` units of its key from the pool, which it returns (read its numbers with
   * `outcomeOf`), or undefined when the pool has too few.
   */
  take(call: LayerCall, now: number): LeasePool | undefined {
    if (this.#closed) return undefined;
    const pool = this.#pools.get(call.key);
    if (pool === undefined) return undefined;
    if (now >= pool.endsAt) {
      void this.#release(pool, now);
      return undefined;
    }
    pool.units = liveUnits(pool, now);
    if (pool.units < call.cost) return undefined;
    pool.units -= call.cost;
    return pool;
  }

  /** A leased layer's answer: allowed, with the store's remaining when the lease was taken plus what is left here. */
  outcomeOf(pool: LeasePool): LayerOutcome {
    const { limit } = pool.call.algorithm;
    return {
      allowed: true,
      limit,
      remaining: Math.min(limit, pool.remaining + pool.units),
      resetAt: pool.resetAt,
      retryAfter: 0,
      delay: 0,
    };
  }

  /** True while the store last refused a lease on this key: take the units one request at a time. */
  refused(key: string, now: number): boolean {
    const pool = this.#pools.get(key);
    return pool !== undefined && now < pool.refusedUntil;
  }

  /**
   * Takes a new lease of `config.size` units for `call`'s key; one store call at a time per key.
   * Resolves false when the store could not answer (the requests waiting on it then decide without
   * the store, rather than ask it a second time), true otherwise (leased or refused). After close()
   * there are no more leases: true at once, and requests go to the store one by one.
   */
  fill(call: LayerCall, config: LeaseConfig): Promise<boolean> {
    if (this.#closed) return Promise.resolve(true);
    let pool = this.#pools.get(call.key);
    if (pool === undefined) {
      pool = new LeasePool({ key: call.key, algorithm: call.algorithm, cost: config.size });
      this.#pools.set(call.key, pool);
    }
    if (pool.filling !== undefined) return pool.filling;
    const filling = this.#fill(pool, config);
    pool.filling = filling;
    return filling;
  }

  async #fill(pool: LeasePool, config: LeaseConfig): Promise<boolean> {
    try {
      const outcome = await this.source.take(pool.call);
      const now = this.clock();
      if (outcome === undefined) return false;
      if (!outcome.allowed) {
        pool.refusedUntil = now + Math.min(config.ttl, Math.max(1, outcome.retryAfter));
        return true;
      }
      if (pool.detached) {
        // Closed, dropped or evicted while the lease was on its way: its units go straight back.
        if (!windowEnded(pool.call, outcome.resetAt, now)) await this.source.giveBack(pool.call, config.size);
        return true;
      }
      // Units still in the pool from an earlier lease go back first: they belong to its window.
      void this.#release(pool, now);
      pool.units = config.size;
      pool.leasedAt = now;
      pool.level = levelAfter(pool.call, outcome);
      pool.remaining = outcome.remaining;
      pool.resetAt = outcome.resetAt;
      pool.refusedUntil = 0;
      pool.endsAt = now + config.ttl;
      if (pool.call.algorithm.kind === 'fixedWindow') pool.endsAt = Math.min(pool.endsAt, outcome.resetAt);
      return true;
    } finally {
      pool.filling = undefined;
    }
  }

  /** Units a request took under `ticket` and did not use (another layer denied, or a refund). */
  putBack(ticket: LeaseTicket, units: number, now: number): void {
    const { pool } = ticket;
    if (this.#pools.get(pool.call.key) === pool && pool.generation === ticket.generation && now < pool.endsAt) {
      pool.units += units;
    } else {
      // From an ended lease: back to the store, as much of it as the bucket (or window) still holds.
      const held = isBucket(pool.call)
        ? Math.min(units, heldUnits(pool.call, ticket.level, ticket.leasedAt, now))
        : windowEnded(pool.call, ticket.resetAt, now)
          ? 0
          : units;
      if (held > 0) void this.source.giveBack(pool.call, held);
    }
  }

  /** Forgets the pools of these keys (their key was reset or blocked), giving their units back. */
  drop(keys: readonly string[]): void {
    for (const key of keys) this.#pools.delete(key);
  }

  /** Gives every unused unit back to the store, leases still on their way included; takes no more. */
  async close(): Promise<void> {
    this.#closed = true;
    const pools = [...this.#pools.values()];
    for (const pool of pools) pool.detached = true;
    await Promise.all(pools.map((pool) => pool.filling));
    const now = this.clock();
    await Promise.all(pools.map((pool) => this.#release(pool, now)));
  }

  /** Gives the pool's unused units back, unless they were taken in a fixed window that has ended. */
  #release(pool: LeasePool, now: number): Promise<void> {
    const units = liveUnits(pool, now);
    pool.units = 0;
    pool.endsAt = 0;
    pool.generation++;
    if (units === 0 || windowEnded(pool.call, pool.resetAt, now)) return Promise.resolve();
    return this.source.giveBack(pool.call, units);
  }
}

/** A bucket's params: limit, capacity, units per cost, drain per ms (see draining-bucket.ts). */
function isBucket(call: LayerCall): boolean {
  return call.algorithm.kind !== 'fixedWindow';
}

/**
 * A lower bound of the bucket's level after the lease: at least the lease itself, and at least what
 * the remaining it reported implies (remaining is rounded down to whole tokens; a lease is never critical).
 */
function levelAfter(call: LayerCall, outcome: LayerOutcome): number {
  if (!isBucket(call)) return 0;
  const { params, reserve } = call.algorithm;
  const capacity = params[1] as number;
  const unitsPerCost = params[2] as number;
  const fromRemaining = capacity - reserve * unitsPerCost - (outcome.remaining + 1) * unitsPerCost + 1;
  return Math.max(call.cost * unitsPerCost, fromRemaining);
}

/** The pool's units the bucket still holds now (all of them for a fixed window). */
function liveUnits(pool: LeasePool, now: number): number {
  if (!isBucket(pool.call) || pool.units === 0) return pool.units;
  return Math.min(pool.units, heldUnits(pool.call, pool.level, pool.leasedAt, now));
}

/** Whole units of a lease a bucket still holds: its level after the lease, drained since. */
function heldUnits(call: LayerCall, level: number, leasedAt: number, now: number): number {
  const { params } = call.algorithm;
  const unitsPerCost = params[2] as number;
  const drainPerMs = params[3] as number;
  return Math.max(0, Math.floor((level - drainPerMs * Math.max(0, now - leasedAt)) / unitsPerCost));
}

/** Units of a fixed window that has ended were counted there: giving them back would credit the next. */
function windowEnded(call: LayerCall, resetAt: number, now: number): boolean {
  return call.algorithm.kind === 'fixedWindow' && now >= resetAt;
}
