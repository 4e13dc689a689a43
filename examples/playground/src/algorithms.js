import {
  concurrency,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingLog,
  slidingWindow,
  tokenBucket,
} from '@floodgate/express';

/**
 * The eight limiters the playground compares. Each one averages about one request per second
 * (10 per 10 s) but tolerates bursts differently, which is what the page makes visible.
 * `id` is the route (`/api/<id>`), the layer name in the headers and part of the key prefix.
 */
export const algorithms = [
  {
    id: 'fixed-window',
    title: 'Fixed window',
    options: { limit: 10, window: '10s' },
    create: fixedWindow,
    note: 'Counts per clock-aligned 10 s window: a burst across a window boundary gets up to 2x through.',
  },
  {
    id: 'sliding-log',
    title: 'Sliding log',
    options: { limit: 10, window: '10s' },
    create: slidingLog,
    note: 'Remembers every admitted request of the last 10 s: exact, one entry per request.',
  },
  {
    id: 'sliding-window',
    title: 'Sliding window',
    options: { limit: 10, window: '10s' },
    create: slidingWindow,
    note: 'Weighs the previous window by how much of it still overlaps: nearly exact with two counters.',
  },
  {
    id: 'token-bucket',
    title: 'Token bucket',
    options: { capacity: 10, refillRate: 1 },
    create: tokenBucket,
    note: 'Ten tokens to spend at once, one back every second.',
  },
  {
    id: 'leaky-bucket-policing',
    title: 'Leaky bucket (policing)',
    options: { capacity: 5, leakRate: 1, mode: 'policing' },
    create: leakyBucket,
    note: 'Holds five, leaks one per second; what would overflow is rejected.',
  },
  {
    id: 'leaky-bucket-shaping',
    title: 'Leaky bucket (shaping)',
    options: { capacity: 5, leakRate: 1, mode: 'shaping' },
    create: leakyBucket,
    note: 'Queues up to five and lets them out one per second: requests wait instead of failing.',
  },
  {
    id: 'gcra',
    title: 'GCRA',
    options: { rate: 10, period: '10s', burst: 2 },
    create: gcra,
    note: 'One request per second with room for two extra at once: the smoothest output.',
  },
  {
    id: 'concurrency',
    title: 'Concurrency',
    options: { max: 3 },
    create: concurrency,
    note: 'At most three requests in flight (each holds its slot for about a second here), whatever the rate.',
  },
];
