// The concurrent workload shared by MemoryStore and RedisStore: INFLIGHT requests always
// outstanding from one process, each a `consume` of one or more layers.

/**
 * Request n goes to identity n mod keys. After keys × perIdentity requests the keys move to a new
 * generation (fresh names), so no identity is asked more than perIdentity times: every limit in
 * algorithms.mjs stays out of reach and every decision charges (about 1 in perIdentity creates a key).
 */
export const WORKLOAD = { inflight: 64, keys: 1000, perIdentity: 50 };
const RULES = ['a', 'b', 'c'];

/** A stream of requests of `layers` layers under `prefix`; `next` carries on across slices. */
export function requestStream(algorithm, layers, prefix) {
  const rules = RULES.slice(0, layers);
  const perGeneration = WORKLOAD.keys * WORKLOAD.perIdentity;
  return {
    next: 0,
    calls(n) {
      const id = n % WORKLOAD.keys;
      const generation = Math.floor(n / perGeneration);
      return rules.map((rule) => ({ key: `${prefix}g${generation}:${rule}:{${id}}`, algorithm, cost: 1 }));
    },
  };
}

/**
 * Keeps WORKLOAD.inflight `store.consume` calls outstanding for `ms`, drawing requests from
 * `stream`, and counts them. A failed call counts as an error, not as a decision.
 */
export async function drive(store, stream, ms) {
  let decided = 0;
  let allowed = 0;
  let errors = 0;
  const begin = performance.now();
  const stopAt = begin + ms;
  const worker = async () => {
    while (performance.now() < stopAt) {
      const n = stream.next++;
      try {
        const outcomes = await store.consume(stream.calls(n), `r${n}`);
        decided++;
        if (outcomes.every((outcome) => outcome.allowed)) allowed++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: WORKLOAD.inflight }, worker));
  return { seconds: (performance.now() - begin) / 1000, decided, allowed, errors };
}
