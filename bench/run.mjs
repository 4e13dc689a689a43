// pnpm bench: decisions per second of MemoryStore for each algorithm, on one hot key and spread
// over 100,000 keys, measured side by side in one run. Writes bench/RESULTS.md.
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import * as core from '../packages/core/dist/index.js';

const ROUNDS = 5;
const OPS = 200_000;
const KEYS = 100_000;

const algorithms = [
  ['fixedWindow', () => core.fixedWindow({ limit: 1_000_000, window: '1m' })],
  ['slidingLog', () => core.slidingLog?.({ limit: 100, window: '1m' })],
  ['slidingWindow', () => core.slidingWindow?.({ limit: 1_000_000, window: '1m' })],
  ['tokenBucket', () => core.tokenBucket?.({ capacity: 1_000_000, refillRate: 1000 })],
  ['leakyBucket', () => core.leakyBucket?.({ capacity: 1_000_000, leakRate: 1000 })],
  ['gcra', () => core.gcra?.({ rate: 1000, period: '1s', burst: 1_000_000 })],
  ['concurrency', () => core.concurrency?.({ max: 100, lease: '1m' })],
].filter(([, make]) => typeof make === 'function' && make() !== undefined);

/** Median decisions/s over ROUNDS rounds of OPS decisions, keys drawn round-robin from `keys`. */
async function measure(algorithm, keyCount) {
  const keys = Array.from({ length: keyCount }, (_, i) => `bench:${i}`);
  const rates = [];
  for (let round = 0; round < ROUNDS; round++) {
    const store = new core.MemoryStore({ maxKeys: KEYS });
    const calls = keys.map((key) => [{ key, algorithm, cost: 1 }]);
    const started = performance.now();
    for (let i = 0; i < OPS; i++) store.consumeNow(calls[i % keyCount], `r${i}`);
    rates.push(OPS / ((performance.now() - started) / 1000));
    await new Promise((resolve) => setImmediate(resolve));
  }
  rates.sort((a, b) => a - b);
  return rates[Math.floor(ROUNDS / 2)];
}

const rows = [];
for (const [name, make] of algorithms) {
  const oneKey = await measure(make(), 1);
  const manyKeys = await measure(make(), KEYS);
  rows.push({ name, oneKey, manyKeys });
  console.log(`${name.padEnd(14)} 1 key ${Math.round(oneKey)}/s   ${KEYS} keys ${Math.round(manyKeys)}/s`);
}

const base = rows[0].oneKey;
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const table = rows
  .map((r) => `| ${r.name} | ${fmt(r.oneKey)} | ${(r.oneKey / base).toFixed(2)} | ${fmt(r.manyKeys)} | ${(r.manyKeys / base).toFixed(2)} |`)
  .join('\n');
const cpu = cpus()[0]?.model ?? 'unknown CPU';
writeFileSync(
  new URL('./RESULTS.md', import.meta.url),
  `# Benchmark results

Command: \`pnpm bench\` (bench/run.mjs). Node ${process.version}, ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB.
Date: ${new Date().toISOString()}.

MemoryStore decisions per second (median of ${ROUNDS} rounds of ${OPS.toLocaleString('en-US')} decisions each), on one
hot key and on ${KEYS.toLocaleString('en-US')} keys visited round-robin. The ratio columns compare each figure with fixedWindow on
one key, measured in the same run: the machine is shared and noisy, so read the ratios, not the absolute numbers.

| algorithm | 1 key (decisions/s) | ratio | ${KEYS.toLocaleString('en-US')} keys (decisions/s) | ratio |
|---|---:|---:|---:|---:|
${table}
`,
);
