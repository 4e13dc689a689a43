import { LRUCache } from 'lru-cache';
import {
  CircuitBreaker,
  type BreakerChange,
  type BreakerSettings,
  type BreakerSignals,
  type BreakerTicket,
} from './breaker';

/** Tickets for every breaker one store call passes through. */
export type Passage = readonly { breaker: CircuitBreaker; ticket: BreakerTicket }[];

/** Partitions beyond this many are forgotten, least recently used first (a new one starts closed). */
const MAX_PARTITIONS = 1024;

/**
 * One circuit breaker per partition of the store. A plain store is one partition (`''`); a store
 * that reports where a key lives (a Cluster: one partition per shard or slot) gets a breaker for
 * each, so a lost shard does not send the healthy ones to the fallback. A call spanning several
 * partitions passes only if every one of their breakers lets it through, and its result counts
 * for all of them.
 */
export class BreakerSet {
  readonly #breakers: LRUCache<string, CircuitBreaker>;

  constructor(
    private readonly settings: BreakerSettings,
    private readonly clock: () => number,
    private readonly onChange: (change: BreakerChange) => void,
    private readonly signals: Partial<BreakerSignals> = {},
  ) {
    this.#breakers = new LRUCache({ max: MAX_PARTITIONS });
  }

  #of(partition: string): CircuitBreaker {
    let breaker = this.#breakers.get(partition);
    if (breaker === undefined) {
      const report = (change: BreakerChange) => this.onChange(partition === '' ? change : { ...change, partition });
      breaker = new CircuitBreaker(this.settings, this.clock, report, this.signals);
      this.#breakers.set(partition, breaker);
    }
    return breaker;
  }

  /** Tickets for all `partitions`, or undefined (and nothing held) when any breaker refuses. */
  acquire(partitions: readonly string[], probes = true): Passage | undefined {
    const passage: { breaker: CircuitBreaker; ticket: BreakerTicket }[] = [];
    for (const partition of partitions) {
      const breaker = this.#of(partition);
      const ticket = probes || breaker.state === 'closed' ? breaker.acquire() : undefined;
      if (ticket === undefined) {
        for (const held of passage) held.breaker.release(held.ticket);
        return undefined;
      }
      passage.push({ breaker, ticket });
    }
    return passage;
  }

  succeed(passage: Passage): void {
    for (const { breaker, ticket } of passage) breaker.succeed(ticket);
  }

  fail(passage: Passage): void {
    for (const { breaker, ticket } of passage) breaker.fail(ticket);
  }

  /** True when no partition is open or half-open. */
  allClosed(): boolean {
    for (const breaker of this.#breakers.values()) if (breaker.state !== 'closed') return false;
    return true;
  }

  /** ms until every breaker of `partitions` will let a call through again. */
  retryIn(partitions: readonly string[]): number {
    return Math.max(0, ...partitions.map((partition) => this.#of(partition).retryIn()));
  }
}
