import { LeaseBook } from './lease';
import type { LeaseSource, LeaseTicket } from './lease';
import type { RuleCall } from './rule-call';
import type { LayerOutcome } from '../store/store';

/**
 * Leased layers: units taken from the store in blocks and handed out locally (see lease.ts for the
 * pools). Serves a request's leased layers from their pools, fills an empty pool first, and puts
 * units back when another layer denies or the request is refunded.
 */
export class Leasing {
  readonly #book: LeaseBook;
  readonly #clock: () => number;

  constructor(source: LeaseSource, clock: () => number) {
    this.#book = new LeaseBook(source, clock);
    this.#clock = clock;
  }

  /**
   * Serves the leased layers of `calls` from their pools. Returns the fills to wait for when a pool
   * was empty (each true once the store answered), undefined when there are none.
   */
  serve(calls: readonly RuleCall[], cost: number): Promise<boolean[]> | undefined {
    const book = this.#book;
    const now = this.#clock();
    let filling: Promise<boolean>[] | undefined;
    for (const call of calls) {
      const lease = call.rule.lease;
      if (lease === undefined || cost > lease.size) continue;
      if (this.#takeFromPool(call, now)) continue;
      if (book.refused(call.key, now)) continue;
      filling ??= [];
      filling.push(book.fill(call, lease));
    }
    return filling === undefined ? undefined : Promise.all(filling);
  }

  /**
   * After `serve`'s fills: false when the store failed to answer one of them (the request is then
   * decided without the store rather than waiting on it a second time); otherwise the layers still
   * unserved are served from their filled pools.
   */
  filled(calls: readonly RuleCall[], answered: readonly boolean[]): boolean {
    if (answered.includes(false)) return false;
    const later = this.#clock();
    for (const call of calls)
      if (call.rule.lease !== undefined && call.ticket === undefined) this.#takeFromPool(call, later);
    return true;
  }

  #takeFromPool(call: RuleCall, now: number): boolean {
    const pool = this.#book.take(call, now);
    if (pool === undefined) return false;
    call.ticket = {
      pool,
      generation: pool.generation,
      resetAt: pool.resetAt,
      level: pool.level,
      leasedAt: pool.leasedAt,
    };
    return true;
  }

  /** Every call's outcome in rule order: leased layers from their pool, the others from the store's answer. */
  merge(calls: readonly RuleCall[], stored: readonly LayerOutcome[]): LayerOutcome[] {
    const outcomes: LayerOutcome[] = new Array(calls.length);
    let next = 0;
    for (let i = 0; i < calls.length; i++) {
      const ticket = (calls[i] as RuleCall).ticket;
      outcomes[i] = ticket === undefined ? (stored[next++] as LayerOutcome) : this.#book.outcomeOf(ticket.pool);
    }
    return outcomes;
  }

  /** Another layer denied: the units handed out from leases go back to their pools. */
  putBackAll(calls: readonly RuleCall[]): void {
    const now = this.#clock();
    for (const call of calls) {
      if (call.ticket === undefined) continue;
      this.#book.putBack(call.ticket, call.cost, now);
      call.ticket = undefined;
    }
  }

  /** A refund of a leased layer: its units go back to the pool they came from. */
  putBack(ticket: LeaseTicket, units: number, now: number): void {
    this.#book.putBack(ticket, units, now);
  }

  /** Forgets the pools of `keys` (a reset, block or unblock changed what the store holds for them). */
  drop(keys: readonly string[]): void {
    this.#book.drop(keys);
  }

  /** Gives every leased unit back to the store. */
  close(): Promise<void> {
    return this.#book.close();
  }
}

/** The calls the store must charge: those not served from a lease. */
export function unleased(calls: RuleCall[]): RuleCall[] {
  for (const call of calls) if (call.ticket !== undefined) return calls.filter((each) => each.ticket === undefined);
  return calls;
}
