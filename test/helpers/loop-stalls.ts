/** How often the stall recorder ticks, ms: a gap between ticks longer than this is time the loop was held up. */
const TICK_MS = 5;
/** The ticks of the scenario being recorded (kept after stop, for the checks that read them). */
let ticks: number[] = [];

/**
 * Starts recording when this process' event loop is held up (a busy host, GC, the test itself), so
 * that a latency bound can take off what the code under test does not control. One recording at a
 * time; the last one is kept after stop.
 */
export function recordStalls(): { stop(): void } {
  ticks = [performance.now()];
  const ticker = setInterval(() => ticks.push(performance.now()), TICK_MS);
  return {
    stop() {
      clearInterval(ticker);
      ticks.push(performance.now());
    },
  };
}

/** ms of [from, to] during which this process' event loop was held up, per the last recording. */
export function stalledDuring(from: number, to: number): number {
  let stalled = 0;
  for (let i = 1; i < ticks.length; i++) {
    const start = ticks[i - 1] as number;
    const end = ticks[i] as number;
    if (end <= from || start >= to) continue;
    const excess = end - start - TICK_MS;
    if (excess > 0) stalled += Math.min(excess, Math.min(end, to) - Math.max(start, from));
  }
  return stalled;
}

/** The spans ([start, end], performance.now()) of the last recording in which the loop was held up longer than `ms`. */
export function stallsLongerThan(ms: number): [number, number][] {
  const spans: [number, number][] = [];
  for (let i = 1; i < ticks.length; i++) {
    const start = ticks[i - 1] as number;
    const end = ticks[i] as number;
    if (end - start - TICK_MS > ms) spans.push([start, end]);
  }
  return spans;
}
