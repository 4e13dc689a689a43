import { concurrency, fixedWindow, gcra, leakyBucket, slidingLog, slidingWindow, tokenBucket } from '@floodgate/core';
import type { Algorithm, AlgorithmKind } from '@floodgate/core';
import type { WireLayer } from './protocol';

// biome-ignore lint/suspicious/noExplicitAny: each factory checks its own options and throws on bad ones.
const FACTORIES: Record<AlgorithmKind, (options: any) => Algorithm> = {
  fixedWindow,
  slidingLog,
  slidingWindow,
  tokenBucket,
  leakyBucket,
  gcra,
  concurrency,
};

/** Distinct algorithms kept built at once; a limiter has a handful, so this only bounds abuse. */
const MAX_CACHED = 256;

/**
 * Builds each algorithm a Worker names once and keeps it: the object runs the very factories the
 * Worker ran, so its decisions are MemoryStore's. An algorithm whose params differ from what the
 * Worker sent was built by other code (a deployment halfway through) and is refused.
 */
export class AlgorithmCache {
  readonly #built = new Map<string, Algorithm>();

  get(layer: WireLayer): Algorithm {
    const name = `${layer.kind}${JSON.stringify(layer.options)}`;
    let algorithm = this.#built.get(name);
    if (algorithm === undefined) {
      algorithm = FACTORIES[layer.kind](layer.options);
      if (this.#built.size >= MAX_CACHED) this.#built.clear();
      this.#built.set(name, algorithm);
    }
    if (algorithm.params.length !== layer.params.length || algorithm.params.some((p, i) => p !== layer.params[i])) {
      throw new TypeError(
        `${layer.kind} built here has params [${algorithm.params.join(', ')}], the Worker sent [${layer.params.join(', ')}]: are both on the same version of @floodgate/core?`,
      );
    }
    return algorithm;
  }
}
