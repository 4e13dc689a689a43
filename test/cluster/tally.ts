import { recordStalls, stalledDuring } from '../helpers/loop-stalls.ts';

type Outcome = { allowed: boolean; degraded: boolean } | { error: unknown };

/** Counts decisions as they come back and wakes whoever waits for a given number of them. */
export class Tally {
  redisAllowed = 0;
  degradedAllowed = 0;
  denied = 0;
  degraded = 0;
  readonly rejected: unknown[] = [];
  maxLatency = 0;
  /** Each decision's start and end (performance.now()), in pairs. */
  readonly #spans: number[] = [];
  readonly #waiting: { total: number; resolve: () => void }[] = [];

  get total(): number {
    return this.redisAllowed + this.degradedAllowed + this.denied + this.rejected.length;
  }

  record(outcome: Outcome, started: number, ended: number): void {
    const latency = ended - started;
    this.#spans.push(started, ended);
    if ('error' in outcome) this.rejected.push(outcome.error);
    else if (!outcome.allowed) this.denied += 1;
    else if (outcome.degraded) this.degradedAllowed += 1;
    else this.redisAllowed += 1;
    if ('degraded' in outcome && outcome.degraded) this.degraded += 1;
    this.maxLatency = Math.max(this.maxLatency, latency);
    for (const waiter of this.#waiting.filter((w) => this.total >= w.total)) waiter.resolve();
  }

  /**
   * The slowest decision with the time this process' event loop was held up meanwhile taken off
   * (a busy host, GC): what the limiter's deadline controls. Needs recordStalls() around the load.
   */
  slowestWithoutStalls(): number {
    let slowest = 0;
    for (let i = 0; i < this.#spans.length; i += 2) {
      const [started, ended] = [this.#spans[i] as number, this.#spans[i + 1] as number];
      slowest = Math.max(slowest, ended - started - stalledDuring(started, ended));
    }
    return slowest;
  }

  /** Resolves once `count` decisions have come back. */
  reach(count: number): Promise<void> {
    if (this.total >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push({ total: count, resolve }));
  }
}

/** `workers` loops that call `consume` back to back until `stop()`, which resolves once all have returned. */
export function startLoad(consume: () => Promise<Outcome>, workers: number): { tally: Tally; stop(): Promise<void> } {
  const tally = new Tally();
  const stalls = recordStalls();
  let running = true;
  const worker = async () => {
    while (running) {
      const started = performance.now();
      const outcome = await consume().catch((error: unknown) => ({ error }));
      tally.record(outcome, started, performance.now());
      // A decision made without I/O (an open breaker, a cached deny) resolves at once: without this
      // turn of the event loop the loops would starve timers and sockets, stop() included.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const loops = Array.from({ length: workers }, worker);
  return {
    tally,
    async stop() {
      running = false;
      await Promise.all(loops);
      stalls.stop();
    },
  };
}
