// The algorithms every part of the benchmark measures, with limits high enough that the
// multi-key workloads stay on the charging path (the one-key MemoryStore run may hit the limit).
import * as core from '../packages/core/dist/index.js';

const makers = [
  ['fixedWindow', () => core.fixedWindow({ limit: 1_000_000, window: '1m' })],
  ['slidingLog', () => core.slidingLog?.({ limit: 100, window: '1m' })],
  ['slidingWindow', () => core.slidingWindow?.({ limit: 1_000_000, window: '1m' })],
  ['tokenBucket', () => core.tokenBucket?.({ capacity: 1_000_000, refillRate: 1000 })],
  ['leakyBucket', () => core.leakyBucket?.({ capacity: 1_000_000, leakRate: 1000 })],
  ['gcra', () => core.gcra?.({ rate: 1000, period: '1s', burst: 1_000_000 })],
  ['concurrency', () => core.concurrency?.({ max: 100, lease: '1m' })],
];

/** [name, make] for every algorithm the built core exports, in a fixed order. */
export const algorithms = makers.filter(([, make]) => make() !== undefined);

/** The smallest per-key limit above (slidingLog, concurrency): a workload must stay under it. */
export const SMALLEST_LIMIT = 100;

export { core };
