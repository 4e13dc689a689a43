import type { Estimator, RttView } from './estimator';

/** The controller's state at one moment: for events, metrics and the playground. */
export interface AdaptiveSnapshot {
  algorithm: 'gradient2' | 'vegas';
  /** Requests admitted at once now (critical ones may use all of it). */
  limit: number;
  /** The part of `limit` normal requests may use; the rest is kept for critical ones. */
  normalLimit: number;
  inFlight: number;
  /** ms: the estimator's baseline (Vegas: no-load RTT; Gradient2: long-term average) and the latest sample. */
  rtt: RttView;
  /** Requests admitted and shed since the start, by priority. */
  admitted: number;
  shed: { normal: number; critical: number };
}

export interface ControllerConfig {
  estimator: Estimator;
  /** Fraction of the limit kept for critical requests, in [0, 1). */
  reserve: number;
  /** A monotonic clock in ms (fractions allowed). */
  now: () => number;
  /** Called when the whole-number limit changes. */
  onChange: ((snapshot: AdaptiveSnapshot) => void) | undefined;
  /** Completed requests folded into one estimate. */
  window: number;
  /** The limit held during a probe. */
  minLimit: number;
  /** ms between probes (each drawn between half and all of it). */
  probeInterval: number;
  random: () => number;
}

/**
 * Admits a request while the process' in-flight count is under a limit the estimator sets from
 * the latency of completed requests. Normal requests stop at the limit less the critical reserve,
 * so when the limit shrinks they are shed first. Pure bookkeeping: no timers, no I/O.
 */
export class AdaptiveController {
  #inFlight = 0;
  #limit: number;
  #admitted = 0;
  #shedNormal = 0;
  #shedCritical = 0;
  /** Only requests admitted from this instant on speak for the current limit. */
  #since = Number.NEGATIVE_INFINITY;
  #windowCount = 0;
  #windowSum = 0;
  #windowMin = Number.POSITIVE_INFINITY;
  #windowInFlight = 0;
  /** When the next probe starts; during one, the limit the probe interrupted. */
  #probeAt: number;
  #probing: number | undefined = undefined;
  readonly #config: ControllerConfig;

  constructor(config: ControllerConfig) {
    this.#config = config;
    this.#limit = Math.floor(config.estimator.limit);
    this.#probeAt = this.#nextProbe(config.now());
  }

  get limit(): number {
    return this.#limit;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** The slots normal requests may fill: the limit less the reserve, never fewer than one. */
  get normalLimit(): number {
    if (this.#probing !== undefined) return Math.max(this.#config.minLimit, Math.floor(this.#probing / 2));
    return Math.max(1, this.#limit - Math.floor(this.#limit * this.#config.reserve));
  }

  /** A slot for a request, or undefined when it is shed. Release the slot exactly once. */
  acquire(critical: boolean): AdaptiveSlot | undefined {
    if (this.#inFlight >= (critical ? this.#limit : this.normalLimit)) {
      if (critical) this.#shedCritical++;
      else this.#shedNormal++;
      return undefined;
    }
    this.#inFlight++;
    this.#admitted++;
    return new AdaptiveSlot(this, this.#config.now(), this.#inFlight);
  }

  /**
   * Frees a slot; a measured one (the response was sent) teaches the estimator its latency. Samples
   * are folded `window` at a time, and only those of requests admitted since the limit last
   * changed count: a request admitted under the old limit queued behind its crowd, and judging the
   * new limit by it would cut again and again while the old queue drains (TCP Vegas likewise
   * adjusts once per round trip).
   */
  finish(slot: AdaptiveSlot, measured: boolean): void {
    this.#inFlight--;
    if (!measured || slot.start < this.#since) return;
    const now = this.#config.now();
    const rtt = Math.max(0, now - slot.start);
    this.#windowCount++;
    this.#windowSum += rtt;
    if (rtt < this.#windowMin) this.#windowMin = rtt;
    if (slot.inFlight > this.#windowInFlight) this.#windowInFlight = slot.inFlight;
    if (this.#windowCount < this.#config.window) return;
    const sample = {
      rtt: this.#windowSum / this.#windowCount,
      minRtt: this.#windowMin,
      inFlight: this.#windowInFlight,
      count: this.#windowCount,
    };
    this.#windowCount = 0;
    this.#windowSum = 0;
    this.#windowMin = Number.POSITIVE_INFINITY;
    this.#windowInFlight = 0;
    if (this.#probing !== undefined) {
      this.#config.estimator.rebase(sample.minRtt);
      this.#probeAt = this.#nextProbe(now);
      this.#since = now;
      this.#change(this.#probing, now);
      this.#probing = undefined;
      return;
    }
    // A probe costs the requests it sheds: only worth it while traffic presses on the limit.
    if (now >= this.#probeAt && sample.inFlight * 2 >= this.#limit) {
      // Half the limit drains the queue the estimator allows (a few requests); critical requests
      // keep their reserve of the full limit on top.
      const held = Math.max(this.#config.minLimit, Math.floor(this.#limit / 2));
      this.#probing = this.#limit;
      this.#since = now;
      this.#change(held + Math.floor(this.#limit * this.#config.reserve), now);
      return;
    }
    this.#change(Math.floor(this.#config.estimator.update(sample)), now);
  }

  #change(limit: number, now: number): void {
    if (limit === this.#limit) return;
    this.#limit = limit;
    this.#since = now;
    const onChange = this.#config.onChange;
    if (onChange === undefined) return;
    try {
      onChange(this.snapshot());
    } catch {
      // A listener's failure must not reach the request that happened to finish.
    }
  }

  #nextProbe(now: number): number {
    return now + this.#config.probeInterval * (0.5 + this.#config.random() * 0.5);
  }

  snapshot(): AdaptiveSnapshot {
    const estimator = this.#config.estimator;
    return {
      algorithm: estimator.kind,
      limit: this.#limit,
      normalLimit: this.normalLimit,
      inFlight: this.#inFlight,
      rtt: estimator.rtt,
      admitted: this.#admitted,
      shed: { normal: this.#shedNormal, critical: this.#shedCritical },
    };
  }
}

/** One admitted request's hold on the controller. */
export class AdaptiveSlot {
  #released = false;

  constructor(
    readonly controller: AdaptiveController,
    /** When the request was admitted, on the controller's clock. */
    readonly start: number,
    /** In-flight count at admission, this request included. */
    readonly inFlight: number,
  ) {}

  /** Frees the slot once; `measured` when the response was sent (its latency is a sample). */
  release(measured: boolean): void {
    if (this.#released) return;
    this.#released = true;
    this.controller.finish(this, measured);
  }
}
