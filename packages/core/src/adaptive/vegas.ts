import { clampLimit, log10Root } from './estimator';
import type { Estimator, LimitBounds, RttView, Sample } from './estimator';

export interface VegasConfig extends LimitBounds {
  /** Weight of a new estimate against the current limit, in (0, 1]. */
  smoothing: number;
}

/**
 * TCP Vegas applied to requests (after Netflix's VegasLimit): the queue the limit builds is
 * `limit · (1 − rttNoLoad / rtt)`; the limit grows while that queue is short (below alpha =
 * 3·log10 L), holds between alpha and beta (6·log10 L) and shrinks above beta. With a dependency
 * of N workers it settles at about N plus a handful of queued requests. The no-load RTT is the
 * lowest seen, re-measured by the controller's probe (Netflix instead re-learns it from ordinary
 * samples, which under a lasting overload adopts the queued latency as normal).
 */
export class Vegas implements Estimator {
  readonly kind = 'vegas';
  limit: number;
  readonly #config: VegasConfig;
  #noLoad = 0;
  #recent = 0;

  constructor(config: VegasConfig) {
    this.#config = config;
    this.limit = config.initialLimit;
  }

  get rtt(): RttView {
    return { baseline: this.#noLoad, recent: this.#recent };
  }

  /** The no-load RTT measured afresh, with the limit held low (see the controller's probe). */
  rebase(minRtt: number): void {
    this.#noLoad = minRtt;
  }

  update({ rtt, minRtt, inFlight }: Sample): number {
    this.#recent = rtt;
    if (this.#noLoad === 0 || minRtt < this.#noLoad) this.#noLoad = minRtt;
    // Too few requests in flight to tell anything about the limit: the app, not the dependency, is the bound.
    if (inFlight * 2 < this.limit) return this.limit;
    const target = this.#target(rtt);
    if (target === undefined) return this.limit;
    const smoothing = this.#config.smoothing;
    this.limit = clampLimit((1 - smoothing) * this.limit + smoothing * target, this.#config);
    return this.limit;
  }

  #target(rtt: number): number | undefined {
    const limit = this.limit;
    const queue = Math.ceil(limit * (1 - this.#noLoad / Math.max(rtt, Number.MIN_VALUE)));
    const step = log10Root(limit);
    if (queue <= step) return limit + 6 * step;
    if (queue < 3 * step) return limit + step;
    // Far above beta (the dependency slowed at once), cut by half the excess rather than one step
    // per round trip, which at a multi-second latency would take minutes.
    if (queue > 6 * step) return limit - Math.max(step, (queue - 6 * step) / 2);
    return undefined;
  }
}
