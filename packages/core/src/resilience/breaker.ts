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
  /** ms: the longest the breaker stays open before it lets a probe through. */
  cooldown: number;
  /** ms: how long it stays open the first time; each failed probe doubles it, up to the cooldown. */
  probeInterval: number;
}

/**
 * What the breaker reads besides the clock: `random` for the jitter (Math.random), and `readyCount`,
 * the store's count of connections made ready (RedisStore: the client's `ready` events), when it
 * has one. A change in that count while the breaker is open means the store is reachable again.
 */
export interface BreakerSignals {
  random: () => number;
  readyCount: (() => unknown) | undefined;
}

const SIGNALS: BreakerSignals = { random: Math.random, readyCount: undefined };

/** Permission to call the store, tied to the breaker state it was granted in. */
export interface BreakerTicket {
  readonly generation: number;
  /** True for the one call a half-open breaker lets through. */
  readonly probe: boolean;
  /**
   * The store's ready count when the call was let through. A call that fails opens the breaker
   * with it: a reconnect that happened while the call was under way still ends the wait.
   */
  readonly ready: number | undefined;
}

/**
 * A circuit breaker over an injected clock. It opens after `failureThreshold` consecutive failures
 * that all fall within `failureWindow`, refuses calls while open, then lets exactly one probe
 * through (half-open): the probe's success closes it, its failure opens it again.
 *
 * How long it stays open backs off: `probeInterval` the first time, twice that after each failed
 * probe, never more than `cooldown` (1, 2, 4, 8, 16, 30, 30 s with the defaults), each wait drawn
 * between half and all of that so that instances which lost the store together do not probe it
 * together. A short outage is over within about a second, a long one costs a probe per cooldown.
 * When the store reports a new ready connection (its client reconnected), the next call probes at
 * once, whatever is left of the wait. A breaker that opens again soon after it closed (a flapping
 * store) resumes its back-off where it was instead of starting from `probeInterval`.
 *
 * Results of calls granted under an earlier state are ignored, so a slow call that started before
 * the breaker opened cannot close it or reopen it later.
 */
export class CircuitBreaker {
  #state: BreakerState = 'closed';
  #generation = 0;
  #openedAt = 0;
  /** How long the current open state lasts (jittered). */
  #openFor = 0;
  /** Doublings of probeInterval for the next opening: failed probes since the store was last well. */
  #backoff = 0;
  #closedAt = Number.NEGATIVE_INFINITY;
  /** The store's ready count when the call that opened the breaker was let through. */
  #readyAtOpen: number | undefined;
  #probing = false;
  /** Times of the current run of consecutive failures, oldest first, at most failureThreshold. */
  readonly #failures: number[] = [];
  readonly #signals: BreakerSignals;

  constructor(
    private readonly settings: BreakerSettings,
    private readonly clock: () => number,
    private readonly onChange: (change: Omit<BreakerChange, 'partition'>) => void,
    signals: Partial<BreakerSignals> = {},
  ) {
    this.#signals = { ...SIGNALS, ...signals };
  }

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
    const ready = this.#readyCount();
    if (this.#state === 'open' && (this.retryIn() === 0 || (ready !== undefined && ready !== this.#readyAtOpen))) {
      this.#moveTo('half-open');
    }
    if (this.#state === 'closed') return { generation: this.#generation, probe: false, ready };
    if (this.#state === 'half-open' && !this.#probing) {
      this.#probing = true;
      return { generation: this.#generation, probe: true, ready };
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
    if (this.#state === 'half-open') {
      this.#closedAt = this.clock();
      this.#moveTo('closed');
    }
  }

  fail(ticket: BreakerTicket): void {
    if (ticket.generation !== this.#generation) return;
    if (this.#state === 'half-open') {
      this.#backoff++;
      this.#moveTo('open', ticket.ready);
      return;
    }
    const now = this.clock();
    this.#failures.push(now);
    if (this.#failures.length > this.settings.failureThreshold) this.#failures.shift();
    const oldest = this.#failures[0] ?? now;
    if (this.#failures.length >= this.settings.failureThreshold && now - oldest <= this.settings.failureWindow) {
      // Well for a failure window since it closed: the back-off starts again from probeInterval.
      if (now - this.#closedAt > this.settings.failureWindow) this.#backoff = 0;
      else this.#backoff++;
      this.#moveTo('open', ticket.ready);
    }
  }

  /** The store's ready count; none when it keeps none, or its getter throws (never into a request). */
  #readyCount(): number | undefined {
    try {
      const count = this.#signals.readyCount?.();
      return typeof count === 'number' ? count : undefined;
    } catch {
      return undefined;
    }
  }

  /** The next open state's length: probeInterval doubled per step of back-off, up to the cooldown, jittered down to half. */
  #openLength(): number {
    const { probeInterval, cooldown } = this.settings;
    const full = Math.min(cooldown, probeInterval * 2 ** Math.min(this.#backoff, 40));
    return Math.max(1, Math.ceil(full * (1 - this.#signals.random() / 2)));
  }

  /** `readyAt`: the ready count of the call whose failure opens the breaker. */
  #moveTo(to: BreakerState, readyAt?: number): void {
    const from = this.#state;
    const at = this.clock();
    this.#state = to;
    this.#generation++;
    this.#probing = false;
    this.#failures.length = 0;
    if (to === 'open') {
      this.#openedAt = at;
      this.#openFor = this.#openLength();
      this.#readyAtOpen = readyAt;
    }
    this.onChange({ from, to, at });
  }
}
