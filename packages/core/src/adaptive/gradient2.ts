import { clampLimit } from './estimator';
import type { Estimator, LimitBounds, RttView, Sample } from './estimator';

export interface Gradient2Config extends LimitBounds {
  /** Weight of a new estimate against the current limit, in (0, 1]. */
  smoothing: number;
  /** Samples the long-term RTT averages over (an exponential moving average). */
  longWindow: number;
  /** How much slower than the long-term RTT a sample may be before the limit shrinks (≥ 1). */
  tolerance: number;
  /** Requests allowed to queue on top of what the gradient keeps. */
  queueSize: number;
}

/** The first samples are averaged plainly, so one early outlier does not fix the long-term RTT. */
const WARMUP = 10;

/**
 * Netflix's Gradient2Limit: the gradient between the long-term RTT (an exponential average) and
 * the latest RTT, `clamp(tolerance · long / short, 0.5, 1)`, scales the limit, and `queueSize`
 * lets it grow back: `limit = gradient · limit + queueSize`, smoothed.
 */
export class Gradient2 implements Estimator {
  readonly kind = 'gradient2';
  limit: number;
  readonly #config: Gradient2Config;
  #long = 0;
  #count = 0;
  #recent = 0;

  constructor(config: Gradient2Config) {
    this.#config = config;
    this.limit = config.initialLimit;
  }

  get rtt(): RttView {
    return { baseline: this.#long, recent: this.#recent };
  }

  /** The long-term RTT measured afresh, with the limit held low: it forgets the drift a lasting queue gave it. */
  rebase(minRtt: number): void {
    this.#long = minRtt;
  }

  update({ rtt, inFlight }: Sample): number {
    const short = Math.max(rtt, Number.MIN_VALUE);
    this.#recent = rtt;
    const long = this.#average(short);
    // A long-term RTT far above the current one is stale (the dependency recovered): let it fall faster.
    if (long / short > 2) this.#long = long * 0.95;
    if (inFlight < this.limit / 2) return this.limit;
    const { tolerance, queueSize, smoothing } = this.#config;
    const gradient = Math.max(0.5, Math.min(1, (tolerance * long) / short));
    const next = gradient * this.limit + queueSize;
    this.limit = clampLimit((1 - smoothing) * this.limit + smoothing * next, this.#config);
    return this.limit;
  }

  #average(rtt: number): number {
    this.#count++;
    if (this.#count <= WARMUP) {
      this.#long += (rtt - this.#long) / this.#count;
    } else {
      const factor = 2 / (this.#config.longWindow + 1);
      this.#long = this.#long * (1 - factor) + rtt * factor;
    }
    return this.#long;
  }
}
