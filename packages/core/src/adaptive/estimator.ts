/**
 * A window of completed requests as the estimators see it: how long it took, and how many requests were
 * in flight when it started (a limit is only judged while traffic actually presses on it).
 */
export interface Sample {
  /** ms from admission to the end of the response: the mean over the window. */
  rtt: number;
  /** The shortest of the window's latencies. */
  minRtt: number;
  /** Completed requests in the window. */
  count: number;
  /** The most requests in flight when one of the window's was admitted (itself included). */
  inFlight: number;
}

/** What an estimator reports about its view of latency, for events and metrics. */
export interface RttView {
  /** The latency the estimator compares against: Vegas' no-load RTT, Gradient2's long-term average. */
  baseline: number;
  /** The latest sample's latency. */
  recent: number;
}

/** A limit estimator: pure state over samples, no clock and no I/O. */
export interface Estimator {
  readonly kind: 'gradient2' | 'vegas';
  /** The limit the samples so far call for (a real number; the controller floors it). */
  readonly limit: number;
  /** Folds one completed request into the estimate and answers the new limit. */
  update(sample: Sample): number;
  /** Takes the lowest latency of a probe (requests admitted while the limit was held low) as the baseline. */
  rebase(minRtt: number): void;
  readonly rtt: RttView;
}

/** Bounds every estimator keeps its limit within. */
export interface LimitBounds {
  initialLimit: number;
  minLimit: number;
  maxLimit: number;
}

export function clampLimit(value: number, bounds: LimitBounds): number {
  return Math.min(bounds.maxLimit, Math.max(bounds.minLimit, value));
}

/** Netflix's Log10RootFunction: the integer decimal logarithm of the limit, at least 1. */
export function log10Root(limit: number): number {
  return Math.max(1, Math.floor(Math.log10(limit)));
}
