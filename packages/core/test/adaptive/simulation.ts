import type { AdaptiveConcurrency } from '../../src/adaptive';

/**
 * A deterministic event simulation of a process in front of a dependency with `workers` parallel
 * workers and a fixed service time: requests arrive evenly, the layer admits or sheds them, an
 * admitted request waits for a free worker (FIFO), and its slot is released when it completes.
 * The layer's clock must be `sim.now`.
 */
export class Simulation {
  now = 0;
  readonly #free: number[];
  /** Pending completions, kept sorted by time. */
  #done: { at: number; release: () => void }[] = [];

  constructor(workers: number) {
    this.#free = new Array(workers).fill(0);
  }

  /**
   * Drives `rate` requests per second for `ms`, `serviceMs` each; `critical(i)` marks the i-th.
   * Returns what happened, second by second.
   */
  run(
    layer: AdaptiveConcurrency,
    phase: { rate: number; ms: number; serviceMs: number; critical?: (i: number) => boolean },
  ): Second[] {
    const seconds: Second[] = [];
    const gap = 1000 / phase.rate;
    const end = this.now + phase.ms;
    let i = 0;
    for (let next = this.now; next < end; next += gap, i++) {
      this.#completeUntil(next);
      this.now = next;
      const second = secondOf(seconds, Math.floor((next - (end - phase.ms)) / 1000));
      const critical = phase.critical?.(i) === true;
      const slot = layer.acquire(critical ? 'critical' : 'normal');
      if (slot === undefined) {
        if (critical) second.shedCritical++;
        else second.shed++;
        continue;
      }
      second.admitted++;
      const worker = this.#earliestWorker();
      const startAt = Math.max(next, this.#free[worker] as number);
      const at = startAt + phase.serviceMs;
      this.#free[worker] = at;
      second.latencies.push(at - next);
      this.#schedule(at, () => slot.release(true));
      second.limit = layer.snapshot().limit;
    }
    this.#completeUntil(end);
    this.now = end;
    return seconds;
  }

  #earliestWorker(): number {
    let best = 0;
    for (let w = 1; w < this.#free.length; w++) if ((this.#free[w] as number) < (this.#free[best] as number)) best = w;
    return best;
  }

  #schedule(at: number, release: () => void): void {
    let index = this.#done.length;
    while (index > 0 && (this.#done[index - 1] as { at: number }).at > at) index--;
    this.#done.splice(index, 0, { at, release });
  }

  #completeUntil(time: number): void {
    while (this.#done.length > 0 && (this.#done[0] as { at: number }).at <= time) {
      const event = this.#done.shift() as { at: number; release: () => void };
      this.now = event.at;
      event.release();
    }
  }
}

export interface Second {
  admitted: number;
  shed: number;
  shedCritical: number;
  latencies: number[];
  /** The limit after the last admission of the second. */
  limit: number;
}

function secondOf(seconds: Second[], index: number): Second {
  while (seconds.length <= index) seconds.push({ admitted: 0, shed: 0, shedCritical: 0, latencies: [], limit: 0 });
  return seconds[index] as Second;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}
