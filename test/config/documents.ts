/** Limits documents the config suites swap between. `hour` is the same in both: its counts must survive. */

const hour = {
  name: 'hour',
  key: { source: 'ip' },
  algorithm: { type: 'fixedWindow', limit: 40, window: '1h' },
};

export const before = {
  rules: [
    hour,
    { name: 'burst', key: { source: 'ip' }, algorithm: { type: 'tokenBucket', capacity: 1000, refillRate: 1 } },
    { name: 'extra', key: { source: 'global' }, algorithm: { type: 'slidingWindow', limit: 100_000, window: '1m' } },
  ],
};

export const after = {
  version: 1,
  rules: [
    hour,
    { name: 'burst', key: { source: 'ip' }, algorithm: { type: 'tokenBucket', capacity: 2000, refillRate: 1 } },
    { name: 'other', key: { source: 'global' }, algorithm: { type: 'fixedWindow', limit: 100_000, window: '1m' } },
  ],
};

/** The policies a document advertises, as `name=q`, in name order. */
export function policiesOf(document: { rules: { name: string; algorithm: Record<string, unknown> }[] }): string {
  return document.rules
    .map((rule) => `${rule.name}=${rule.algorithm.limit ?? rule.algorithm.capacity}`)
    .sort()
    .join(',');
}
