import type { Algorithm, AlgorithmKind } from './types';

const KIND_CODES: Record<AlgorithmKind, string> = {
  fixedWindow: 'fw',
  slidingLog: 'sl',
  slidingWindow: 'sw',
  tokenBucket: 'tb',
  leakyBucket: 'lb',
  gcra: 'gc',
  concurrency: 'cc',
};

/** True for the kind of one of the seven algorithms (each has a Lua twin and a key code). */
export function isAlgorithmKind(kind: unknown): kind is AlgorithmKind {
  return typeof kind === 'string' && Object.hasOwn(KIND_CODES, kind);
}

/** Kinds whose last param is the critical reserve, which changes who may use the state, not its meaning. */
const RESERVE_LAST = new Set<AlgorithmKind>(['fixedWindow', 'slidingWindow', 'tokenBucket', 'leakyBucket', 'gcra']);

const tags = new WeakMap<Algorithm, string>();

/**
 * The part of a key that says which algorithm, with which options, keeps the state under it: the
 * kind's code and an FNV-1a hash of the params (`fw.1hq3k0`). Two limiters that share a store,
 * a prefix and a rule name but not the algorithm (a sliding log and a fixed window, or one window
 * and another) then never read each other's state, which would be of another type or in other units.
 * The reserve is left out: limiters that differ only in it share their counters.
 */
export function algorithmTag(algorithm: Algorithm): string {
  let tag = tags.get(algorithm);
  if (tag === undefined) {
    let hash = 0x811c9dc5;
    const params = RESERVE_LAST.has(algorithm.kind) ? algorithm.params.slice(0, -1) : algorithm.params;
    const text = params.join(',');
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    tag = `${KIND_CODES[algorithm.kind] ?? 'xx'}.${hash.toString(36)}`;
    tags.set(algorithm, tag);
  }
  return tag;
}
