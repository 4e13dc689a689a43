// Where a contender's CPU goes, per request: `node bench/http/profile.mjs <scenario> <contender>...`
// (scenario: allowed, hot or denied, as in config.mjs). Each contender runs alone under the same wrk
// load as `pnpm bench:http`, with `node --cpu-prof`; its CPU per request (from /proc) is split by
// the profile's samples into who spent it: Floodgate's packages, the framework, the Redis client,
// Node's own JavaScript, and native work (socket writes, GC, the parser); idle samples are left out
// of that split, and their share is a column of its own (how long node waited on I/O).
// Prints a markdown table and writes it to bench/http/last-profile.md; the .cpuprofile files stay
// in bench/http/profiles/ for Chrome DevTools or speedscope.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { startRedisServer } from '../redis-server.mjs';
import { CONTENDERS, DENIED_KEY, LOAD, SCENARIOS } from './config.mjs';
import { wrk } from './measure.mjs';
import { cpuMicros, startServer } from './processes.mjs';

const [scenarioName, ...names] = process.argv.slice(2);
const scenario = SCENARIOS[scenarioName];
if (scenario === undefined || names.length === 0) {
  console.error(`usage: node bench/http/profile.mjs <${Object.keys(SCENARIOS).join('|')}> <contender>...`);
  process.exit(2);
}
for (const name of names) {
  if (!CONTENDERS.has(name)) {
    console.error(`unknown contender '${name}'; known: ${[...CONTENDERS.keys()].join(', ')}`);
    process.exit(2);
  }
}

const SECONDS = 5;
const PROFILES = new URL('./profiles/', import.meta.url).pathname;

/** Who a frame belongs to, from its script URL (bundled packages keep their node_modules path). */
function ownerOf(url, functionName) {
  if (url === '') {
    if (functionName === '(garbage collector)') return 'GC';
    return 'native';
  }
  if (url.includes('/packages/') && !url.includes('node_modules')) return 'Floodgate';
  if (url.includes('@floodgate/')) return 'Floodgate';
  if (url.startsWith('node:')) return 'Node (JS)';
  if (/node_modules\/(ioredis|@ioredis|redis-parser|denque|cluster-key-slot)\//.test(url)) return 'Redis client';
  return 'framework & peers';
}

const OWNERS = ['Floodgate', 'framework & peers', 'Redis client', 'Node (JS)', 'native', 'GC'];

function analyse(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byOwner = new Map(OWNERS.map((owner) => [owner, 0]));
  const ours = new Map();
  let busy = 0;
  let idle = 0;
  for (const id of profile.samples) {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    if (functionName === '(idle)') {
      idle++;
      continue;
    }
    busy++;
    const owner = ownerOf(url, functionName);
    byOwner.set(owner, byOwner.get(owner) + 1);
    if (owner === 'Floodgate') {
      const where = `${functionName || '(anonymous)'} (${url.replace(/.*\/packages\//, '').replace(/^file:\/\//, '')}:${lineNumber + 1})`;
      ours.set(where, (ours.get(where) ?? 0) + 1);
    }
  }
  return { busy, idleShare: idle / (idle + busy), byOwner, ours };
}

async function profileOne(name, redis) {
  const contender = CONTENDERS.get(name);
  const dir = `${PROFILES}${scenarioName}-${name}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (redis) await redis.admin.flushall();
  const env = {
    BENCH_LIMIT: String(scenario.limit),
    BENCH_WINDOW_MS: String(scenario.windowMs),
  };
  if (redis && contender.redis) env.BENCH_REDIS_PORT = String(redis.port);
  const server = await startServer(name, env, undefined, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  let load;
  let cpu;
  try {
    if (scenario.expect === 'denied') {
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`http://127.0.0.1:${server.port}/`, { headers: { 'x-api-key': DENIED_KEY } });
        await response.arrayBuffer();
      }
    }
    await wrk(server.port, scenario.keys, LOAD.warmupSeconds);
    const before = cpuMicros(server.pid);
    load = await wrk(server.port, scenario.keys, SECONDS);
    cpu = cpuMicros(server.pid) - before;
  } finally {
    await server.stop();
  }
  const file = readdirSync(dir).find((entry) => entry.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`${name}: no profile written in ${dir}`);
  const perRequest = cpu / load.requests;
  return { name, perRequest, rps: load.requests / (load.durationUs / 1e6), ...analyse(`${dir}/${file}`) };
}

let redis;
const rows = [];
try {
  if (names.some((name) => CONTENDERS.get(name).redis)) {
    const server = await startRedisServer();
    const admin = new Redis({ host: '127.0.0.1', port: server.port, lazyConnect: true });
    await admin.connect();
    redis = { ...server, admin };
  }
  for (const name of names) {
    const row = await profileOne(name, redis);
    rows.push(row);
    console.log(`${name}: ${row.perRequest.toFixed(1)} µs/req at ${Math.round(row.rps)} req/s`);
  }
} finally {
  if (redis) {
    await redis.admin.quit().catch(() => {});
    await redis.stop();
  }
}

const us = (row, samples) => ((samples / row.busy) * row.perRequest).toFixed(1);
const table = [
  `| contender | node µs/req | node idle | ${OWNERS.join(' | ')} |`,
  `|---|---:|---:|${OWNERS.map(() => '---:').join('|')}|`,
  ...rows.map(
    (row) =>
      `| ${row.name} | ${row.perRequest.toFixed(1)} | ${(row.idleShare * 100).toFixed(0)} % | ${OWNERS.map((o) => us(row, row.byOwner.get(o))).join(' | ')} |`,
  ),
];
const detail = rows
  .filter((row) => row.ours.size > 0)
  .map((row) => {
    const top = [...row.ours].sort((a, b) => b[1] - a[1]).slice(0, 12);
    return `#### ${row.name}: Floodgate's own functions, by self time (µs/req)\n\n${top.map(([where, n]) => `- ${us(row, n)} ${where}`).join('\n')}`;
  });
const markdown = `## Profile: ${scenario.label}

Command: \`node bench/http/profile.mjs ${process.argv.slice(2).join(' ')}\`, ${new Date().toISOString()}; ${cpus().length} cores, load average ${loadavg()[0].toFixed(2)} at the end.
Each contender alone: \`wrk -t${LOAD.threads} -c${LOAD.connections} -d${SECONDS}s\` after ${LOAD.warmupSeconds} s of warm-up, under \`node --cpu-prof\` (which itself costs a little).
**node µs/req** is the server's CPU per request from /proc; the other columns split it by the profile's non-idle samples
(self time of each frame, by the script it belongs to: native is C++ and the kernel, socket writes and the HTTP parser among it).
**node idle** is the share of all samples (the process' whole life, its warm-up included) in which node waited for I/O: a row
whose node idles while the load is on is bound by round trips (to Redis, to wrk), not by node's CPU.

${table.join('\n')}

${detail.join('\n\n')}
`;
writeFileSync(new URL('./last-profile.md', import.meta.url), markdown);
console.log(`\n${markdown}`);
