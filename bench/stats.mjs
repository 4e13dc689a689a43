/** The q-quantile (0..1) of a non-empty list of numbers, interpolated between neighbours. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.ceil(at)] - sorted[low]) * (at - low);
}

/** Median of a non-empty list of numbers. */
export function median(values) {
  return quantile(values, 0.5);
}

/** Yields to the event loop, so timers and I/O queued during a tight loop get to run. */
export function breathe() {
  return new Promise((resolve) => setImmediate(resolve));
}
