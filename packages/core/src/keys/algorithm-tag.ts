import type { Algorithm, AlgorithmKind } from '../algorithms/types';

const KIND_CODES: Record<AlgorithmKind, string> = {
  fixedWindow: 'fw',
  slidingLog: 'sl',
  slidingWindow: 'sw',
  tokenBucket: 'tb',
  leakyBucket: 'lb',
  gcra: 'gc',
  concurrency: 'cc',
};

const tags = new WeakMap<Algorithm, string>();

/**
 * The part of a key that says which algorithm, with which options, keeps the state under it: the
 * kind's code and an FNV-1a hash of the params (`fw.1hq3k0`). Two limiters that share a store,
 * a prefix and a rule name but not the algorithm (a sliding log and a fixed window, or one window
 * and another) then never read each other's state, which would be of another type or in other units.
 */
export function algorithmTag(algorithm: Algorithm): string {
  let tag = tags.get(algorithm);
  if (tag === undefined) {
    let hash = 0x811c9dc5;
    const text = algorithm.params.join(',');
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    tag = `${KIND_CODES[algorithm.kind] ?? 'xx'}.${hash.toString(36)}`;
    tags.set(algorithm, tag);
  }
  return tag;
}
