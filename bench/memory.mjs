// MemoryStore.consumeNow in a tight loop: one hot key, and keys spread over KEYS, visited round-robin.
import { algorithms, core } from './algorithms.mjs';
import { breathe, median } from './stats.mjs';

export const MEMORY = { rounds: 3, maxOps: 200_000, roundMs: 300, keys: 100_000 };
const CHUNK = 1000;

/** Decisions/s of one round: up to maxOps decisions, cut short after roundMs. */
function round(calls) {
  const store = new core.MemoryStore({ maxKeys: MEMORY.keys });
  const started = performance.now();
  const stopAt = started + MEMORY.roundMs;
  let done = 0;
  while (done < MEMORY.maxOps && performance.now() < stopAt) {
    for (let end = done + CHUNK; done < end; done++) store.consumeNow(calls[done % calls.length], `r${done}`);
  }
  return done / ((performance.now() - started) / 1000);
}

async function measure(algorithm, keyCount) {
  const calls = Array.from({ length: keyCount }, (_, i) => [{ key: `bench:${i}`, algorithm, cost: 1 }]);
  const rates = [];
  for (let r = 0; r < MEMORY.rounds; r++) {
    rates.push(round(calls));
    await breathe();
  }
  return median(rates);
}

/** One row per algorithm: median decisions/s on one key and on MEMORY.keys keys. */
export async function runMemory(log) {
  const rows = [];
  for (const [name, make] of algorithms) {
    const oneKey = await measure(make(), 1);
    const manyKeys = await measure(make(), MEMORY.keys);
    rows.push({ name, oneKey, manyKeys });
    log(`memory ${name.padEnd(14)} 1 key ${Math.round(oneKey)}/s   ${MEMORY.keys} keys ${Math.round(manyKeys)}/s`);
  }
  return rows;
}
