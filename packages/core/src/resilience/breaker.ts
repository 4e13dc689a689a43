/** `closed`: the store is called. `open`: it is not. `half-open`: one probe decides. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** Reported through `onBreakerChange`; `at` is the limiter clock's epoch ms. */
export interface BreakerChange {
  from: BreakerState;
  to: BreakerState;
  at: number;
  /** The part of a partitioned store (a Cluster shard) this breaker guards; undefined for a whole store. */
  partition?: string;
}

export interface BreakerSettings {
  failureThreshold: number;
  /** ms */
  failureWindow: number;
  /** ms */
  cooldown: number;
  /** ms the breaker stays open after a failed probe: the store may be back, its client not connected yet. */
  probeInterval: number;
}

/** Permission to call the store, tied to the breaker state it was granted in. */
export interface BreakerTicket {
  readonly generation: number;
  /** True for the one call a half-open breaker lets through. */
  readonly probe: boolean;
}

/**
 * A circuit breaker over an injected clock. It opens after `failureThreshold` consecutive failures
 * that all fall within `failureWindow`, refuses every call for `cooldown`, then lets exactly one
 * probe through (half-open): the probe's success closes it, its failure opens it again, this time
 * for `probeInterval` only. A store that has just come back often fails its first probe because its
 * client has not reconnected yet; that must not cost another whole cooldown.
 * Results of calls granted under an earlier state are ignored, so a slow call that started before
 * the breaker opened cannot close it or reopen it later.
 */
export class CircuitBreaker {
  #state: BreakerState = 'closed';
  #generation = 0;
  #openedAt = 0;
  /** How long the current open state lasts: the cooldown, or probeInterval after a failed probe. */
  #openFor = 0;
  #probing = false;
  /** Times of the current run of consecutive failures, oldest first, at most failureThreshold. */
  readonly #failures: number[] = [];

  constructor(
    private readonly settings: BreakerSettings,
    private readonly clock: () => number,
    private readonly onChange: (change: Omit<BreakerChange, 'partition'>) => void,
  ) {}

  get state(): BreakerState {
    return this.#state;
  }

  /** ms until the breaker lets a probe through; 0 unless open. */
  retryIn(): number {
    if (this.#state !== 'open') return 0;
    return Math.max(0, this.#openedAt + this.#openFor - this.clock());
  }

  /** A ticket when the store may be called now, otherwise undefined. */
  acquire(): BreakerTicket | undefined {
    if (this.#state === 'open' && this.retryIn() === 0) this.#moveTo('half-open');
    if (this.#state === 'closed') return { generation: this.#generation, probe: false };
    if (this.#state === 'half-open' && !this.#probing) {
      this.#probing = true;
      return { generation: this.#generation, probe: true };
    }
    return undefined;
  }

  /** Gives back a ticket that was not used, so an unused probe does not block the next one. */
  release(ticket: BreakerTicket): void {
    if (ticket.probe && ticket.generation === this.#generation) this.#probing = false;
  }

  succeed(ticket: BreakerTicket): void {
    if (ticket.generation !== this.#generation) return;
    this.#failures.length = 0;
    if (this.#state === 'half-open') this.#moveTo('closed');
  }

  fail(ticket: BreakerTicket): void {
    if (ticket.generation !== this.#generation) return;
    if (this.#state === 'half-open') {
      this.#moveTo('open', Math.min(this.settings.probeInterval, this.settings.cooldown));
      return;
    }
    const now = this.clock();
    this.#failures.push(now);
    if (this.#failures.length > this.settings.failureThreshold) this.#failures.shift();
    const oldest = this.#failures[0] ?? now;
    if (this.#failures.length >= this.settings.failureThreshold && now - oldest <= this.settings.failureWindow) {
      this.#moveTo('open', this.settings.cooldown);
    }
  }

  #moveTo(to: BreakerState, openFor = 0): void {
    const from = this.#state;
    const at = this.clock();
    this.#state = to;
    this.#generation++;
    this.#probing = false;
    this.#failures.length = 0;
    if (to === 'open') {
      this.#openedAt = at;
      this.#openFor = openFor;
    }
    this.onChange({ from, to, at });
  }
}
