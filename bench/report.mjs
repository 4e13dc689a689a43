// Renders bench/RESULTS.md from the measurements of one run.
import { cpus, totalmem } from 'node:os';
import { WORKLOAD } from './inflight.mjs';
import { MEMORY } from './memory.mjs';
import { REDIS, rate } from './redis.mjs';
import { median, quantile } from './stats.mjs';

const int = (n) => Math.round(n).toLocaleString('en-US');
const ratio = (n) => n.toFixed(2);
const per = (count, of) => (of === 0 ? 'n/a' : (count / of).toFixed(2));

function memoryTable(rows) {
  const base = rows[0].oneKey;
  const lines = rows.map((r) =>
    [r.name, int(r.oneKey), ratio(r.oneKey / base), int(r.manyKeys), ratio(r.manyKeys / base)].join(' | '),
  );
  return `| algorithm | 1 key (decisions/s) | ratio | ${int(MEMORY.keys)} keys (decisions/s) | ratio |
|---|---:|---:|---:|---:|
${lines.map((line) => `| ${line} |`).join('\n')}`;
}

const turns = (a, b) => a.rates.map((value, i) => value / b.rates[i]);
const spread = (values) => `(${ratio(quantile(values, 0.25))}–${ratio(quantile(values, 0.75))})`;

/** Ratio of the totals of two runs, then the middle half of the ratios of their slices of the same turn. */
function paired(a, b) {
  return `${ratio(rate(a) / rate(b))} ${spread(turns(a, b))}`;
}

/** Every algorithm's per-turn ratios pooled: their median and middle half. */
function pooled(rows, a, b) {
  const values = rows.flatMap(({ totals }) => turns(totals[a], totals[b]));
  return `**${ratio(median(values))}** ${spread(values)}`;
}

function throughputTable(rows) {
  const lines = rows.map(({ name, totals: t }) => {
    const rates = [t.memory, t.off, t.on, t.on2].map((total) => int(rate(total)));
    return [name, ...rates.slice(0, 3), paired(t.on, t.off), rates[3], paired(t.on2, t.on), paired(t.memory, t.on)];
  });
  const all = [pooled(rows, 'on', 'off'), pooled(rows, 'on2', 'on'), pooled(rows, 'memory', 'on')];
  lines.push(['all algorithms, median per turn', '', '', '', all[0], '', all[1], all[2]]);
  return `| algorithm | MemoryStore | Redis, pipelining off | Redis, pipelining on | on / off | Redis on, 2 layers | 2 layers / 1 layer | Memory / Redis on |
|---|---:|---:|---:|---:|---:|---:|---:|
${lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n')}`;
}

function wireTable(rows) {
  const lines = rows.map(({ name, totals: { off, on, on2 } }) => {
    const consumes = (t) => t.decided + t.errors;
    const sent = [off, on, on2].map((t) => per(t.commands, consumes(t))).join(' / ');
    const scripts = [on, on2].map((t) => per(t.scripts, consumes(t))).join(' / ');
    const inner = [on, on2].map((t) => per(t.inner, consumes(t))).join(' / ');
    const writes = [off, on].map((t) => per(consumes(t), t.writes)).join(' / ');
    return [name, sent, scripts, inner, writes, off.errors + on.errors + on2.errors];
  });
  return `| algorithm | commands sent per consume (off / on / on, 2 layers) | scripts run per consume (1 / 2 layers) | commands inside the script per consume (1 / 2 layers) | consumes per socket write (off / on) | errors |
|---|---:|---:|---:|---:|---:|
${lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n')}`;
}

function redisSection(redis) {
  if (redis.skipped) return `### RedisStore\n\nNot measured: ${redis.skipped}\n`;
  const all = redis.rows.flatMap((row) => Object.values(row.totals));
  const denied = all.reduce((sum, t) => sum + t.decided - t.allowed, 0);
  const errors = redis.rows.reduce((sum, { totals: t }) => sum + t.off.errors + t.on.errors + t.on2.errors, 0);
  return `### RedisStore next to MemoryStore

One process keeps ${WORKLOAD.inflight} \`consume\` calls in flight over ${int(WORKLOAD.keys)} identities; an identity's keys are
renamed after ${WORKLOAD.perIdentity} requests, so no limit is reached and every decision charges. RedisStore talks to a private
redis-server on a loopback port (\`--save '' --appendonly no\`) through ioredis with the settings
packages/redis/README.md recommends (\`enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 100,
connectTimeout: 1000, reconnectOnError: null\`), once with \`enableAutoPipelining: false\` and once with \`true\`.
MemoryStore runs the same requests through its async \`consume\`. Each of the four runs is cut into ${REDIS.slices} slices
(${REDIS.redisMs} ms for Redis, ${REDIS.memoryMs} ms for MemoryStore) played in turn, so a burst of load from elsewhere
hits them alike; decisions per second are totals over the slices, after one warm-up slice each. Each ratio is the
ratio of those totals, followed in brackets by the middle half (25th to 75th percentile) of the ${REDIS.slices} ratios of
slices played in the same turn: a bracket that straddles 1.00 means no difference this run could show. The last
row pools the per-turn ratios of every algorithm (median, then middle half). A two-layer
decision is one \`consume\` of two layers (two keys), counted once.

${throughputTable(redis.rows)}

What crossed the wire, over all slices: commands the client sent (ioredis \`sendCommand\`), scripts the server ran
(EVALSHA/EVAL/FCALL in \`INFO commandstats\`, read before and after each slice), the commands those scripts called
(the rest of \`commandstats\`, not counting our own INFO), and the client's socket writes.

${wireTable(redis.rows)}

Errors are calls that failed (on a busy machine, mostly the 100 ms \`commandTimeout\`): ${errors} in all, left out of
the decisions per second but counted as consumes in the per-consume columns. Denied decisions: ${denied}.
`;
}

/** `pnpm bench`'s section of RESULTS.md. */
export function renderResults({ memoryRows, redis, redisServer, ioredis }) {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return `## Stores in process: \`pnpm bench\`

Command: \`pnpm bench\` (turbo build of packages/*, then \`node bench/run.mjs\`). Date: ${new Date().toISOString()}.
Node ${process.version}; redis-server ${redisServer ?? 'not found'}; ioredis ${ioredis};
${cpus().length} cores × ${cpu}; ${Math.round(totalmem() / 2 ** 30)} GiB.

How to read it: every number below was measured in this one run, on a machine that may be shared and noisy
(the client and redis-server share its cores), so compare the ratio columns, which set two figures from the same
run side by side, and treat the absolute decisions per second as this machine's, this minute's.

### MemoryStore

\`consumeNow\` in a tight loop, on one hot key and on ${int(MEMORY.keys)} keys visited round-robin (most decisions
there create the key). Median of ${MEMORY.rounds} rounds, each ${int(MEMORY.maxOps)} decisions or ${MEMORY.roundMs} ms,
whichever comes first. The ratios compare each figure with fixedWindow on one key. The one-key runs of
slidingLog and concurrency reach their limit (100) and then measure denials.

${memoryTable(memoryRows)}

${redisSection(redis)}`;
}
