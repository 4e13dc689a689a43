// pnpm bench:http: every contender (Floodgate's adapters, the peers) in its own process under the
// same wrk load, per scenario, in alternating slices with its bare framework (a process of its own);
// then the exactness check across two instances. Writes its section of bench/RESULTS.md, or, when
// BENCH_ONLY or BENCH_SCENARIOS narrow the run (or a run fails), bench/http/last-partial.md.
//
// Environment: BENCH_DURATION=<pairs of 1 s slices> (default 4), BENCH_ONLY=<substrings of contender names, comma-separated;
// =name for that contender alone>,
// BENCH_SCENARIOS=allowed,hot,denied (a comma-separated subset), BENCH_RATES=<req/s,...> or 'none'
// (the fixed-rate latency table; default 1,000/s doubling to half of bare's maximum),
// BENCH_LATENCY_SECONDS=<seconds per rate> (default 8).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { Redis } from 'ioredis';
import { redisServerVersion, startRedisServer } from '../redis-server.mjs';
import { HTTP_SECTION, writeSection } from '../results-file.mjs';
import { CONTENDERS, DENIED_KEY, EXACTNESS, GROUPS, LOAD, SCENARIOS, SLICE_SECONDS } from './config.mjs';
import { exactness } from './exactness.mjs';
import {
  heySlice,
  LATENCY_CONTENDERS,
  LATENCY_SLICE_SECONDS,
  offeredRates,
  pooled,
  renderLatency,
} from './latency.mjs';
import { measureSlice, summarize, wrk } from './measure.mjs';
import { startServer, versionLine } from './processes.mjs';
import { relate, renderMarkdown, renderText } from './report.mjs';

const started = Date.now();
const loadAtStart = loadavg()[0];
const only = process.env.BENCH_ONLY?.trim() || undefined;
const onlyParts = only
  ?.split(',')
  .map((part) => part.trim())
  .filter((part) => part !== '');
const scenarioFilter = process.env.BENCH_SCENARIOS?.trim() || undefined;
const scenarios = scenarioFilter ? scenarioFilter.split(',').map((s) => s.trim()) : Object.keys(SCENARIOS);
for (const scenario of scenarios) {
  if (!(scenario in SCENARIOS))
    fail(`BENCH_SCENARIOS: unknown scenario '${scenario}' (known: ${Object.keys(SCENARIOS)})`);
}

// The groups to run: a group runs when one of its contenders matches BENCH_ONLY; its bare runs always.
const groups = GROUPS.map((group) => ({
  ...group,
  contenders: group.contenders.filter(
    (name) =>
      onlyParts === undefined ||
      onlyParts.some((part) => (part.startsWith('=') ? name === part.slice(1) : name.includes(part))),
  ),
})).filter((group) => group.contenders.length > 0);
if (groups.length === 0)
  fail(`BENCH_ONLY='${only}' matches no contender (known: ${[...CONTENDERS.keys()].join(', ')})`);
const selected = groups.flatMap((group) => group.contenders);
const exactnessNames = selected.filter(
  (name) => CONTENDERS.get(name).kind === 'floodgate' && CONTENDERS.get(name).redis,
);
const needsRedis = selected.some((name) => CONTENDERS.get(name).redis);

const wrkVersion = versionLine('wrk', ['-v']);
if (wrkVersion === undefined) fail('wrk is not on the PATH: install it (Debian: apt-get install wrk)');
const redisVersion = redisServerVersion();
if (needsRedis && redisVersion === undefined) {
  fail('redis-server is not on the PATH: install it (Debian: apt-get install redis-server)');
}

function fail(message) {
  console.error(`bench:http: ${message}`);
  process.exit(1);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits out a window boundary (epoch-aligned, as Floodgate's) that would fall within the next `spanMs`. */
async function clearOfBoundary(windowMs, spanMs) {
  const left = windowMs - (Date.now() % windowMs);
  if (left < spanMs) {
    console.log(`  waiting ${Math.ceil(left / 1000)} s for the next ${windowMs / 60_000}-minute window`);
    await sleep(left + 200);
  }
}

/** Exhausts DENIED_KEY (limit 1): requests until one is answered 429. */
async function exhaust(port, name) {
  const seen = [];
  for (let i = 0; i < 5; i++) {
    const response = await fetch(`http://127.0.0.1:${port}/`, { headers: { 'x-api-key': DENIED_KEY } });
    await response.arrayBuffer();
    seen.push(response.status);
    if (response.status === 429) return;
  }
  throw new Error(`${name}: could not exhaust the denied key (statuses ${seen.join(', ')})`);
}

/** What each response must be: bare frameworks never deny. */
function checkStatuses(name, expect, result) {
  const wanted = expect === 'denied' ? (status) => status === 429 : (status) => status >= 200 && status < 300;
  const wrong = Object.entries(result.statuses).filter(([status]) => !wanted(Number(status)));
  const counted = Object.values(result.statuses).reduce((sum, n) => sum + n, 0);
  if (wrong.length > 0 || counted !== result.requests || result.requests === 0) {
    const got = JSON.stringify(result.statuses);
    throw new Error(
      `${name}: expected every response ${expect === 'denied' ? '429' : '2xx'}, got ${got} of ${result.requests}`,
    );
  }
}

const latencySeconds = Number(process.env.BENCH_LATENCY_SECONDS || 8);
if (!(latencySeconds > 0))
  fail(`BENCH_LATENCY_SECONDS must be a number of seconds > 0, got '${process.env.BENCH_LATENCY_SECONDS}'`);
const latencyNames = groups.flatMap((group) =>
  (LATENCY_CONTENDERS[group.framework] ?? []).filter((name) => name === group.bare || group.contenders.includes(name)),
);
let rates = [];
const latencyRows = [];
if (latencyNames.length > 0 && process.env.BENCH_RATES?.trim() !== 'none' && versionLine('hey', ['-h']) === undefined) {
  fail('hey is not on the PATH: install it (Debian: apt-get install hey), or set BENCH_RATES=none');
}

let redis;
const runs = [];
const exactnessRows = [];
const failures = [];

/**
 * A contender and its bare framework in alternating slices of SLICE_SECONDS (contender, bare,
 * bare, contender, …): a drift of the machine (another process, a frequency change) falls on both
 * alike, and each pair gives its own ratio. The bare server is already running and warm.
 */
async function runPaired(run, bare) {
  const contender = CONTENDERS.get(run.name);
  const scenario = SCENARIOS[run.scenario];
  if (redis) await redis.admin.flushall();
  if (scenario.expect === 'denied')
    await clearOfBoundary(scenario.windowMs, (2 * LOAD.seconds * SLICE_SECONDS + LOAD.warmupSeconds) * 1000 + 20_000);
  const env = { BENCH_LIMIT: String(scenario.limit), BENCH_WINDOW_MS: String(scenario.windowMs) };
  if (redis) env.BENCH_REDIS_PORT = String(redis.port);
  const server = await startServer(run.name, env);
  try {
    if (scenario.expect === 'denied') await exhaust(server.port, run.name);
    checkStatuses(`${run.name} warm-up`, scenario.expect, await wrk(server.port, scenario.keys, LOAD.warmupSeconds));
    const mine = [];
    const theirs = [];
    const ratios = [];
    for (let pair = 0; pair < LOAD.seconds; pair++) {
      const slice = () => measureSlice(server, scenario.keys, contender.redis ? redis : undefined, SLICE_SECONDS);
      const bareSlice = () => measureSlice(bare.server, scenario.keys, undefined, SLICE_SECONDS);
      const [ours, base] = pair % 2 === 0 ? [await slice(), await bareSlice()] : [null, await bareSlice()];
      const contenderSlice = ours ?? (await slice());
      mine.push(contenderSlice);
      theirs.push(base);
      ratios.push(rate(contenderSlice) / rate(base));
    }
    const result = summarize(mine);
    checkStatuses(run.name, scenario.expect, result);
    const bareResult = summarize(theirs);
    checkStatuses(`${bare.name} beside ${run.name}`, 'allowed', bareResult);
    bare.slices.push(...theirs);
    if (result.socketErrors > 0) console.warn(`  ${run.name}: ${result.socketErrors} socket errors (wrk)`);
    return { result, bareResult, ratios };
  } finally {
    await server.stop();
  }
}

const rate = (slice) => slice.load.requests / (slice.load.durationUs / 1e6);

/** The bare framework of a bracket, started once and warmed; its slices pooled for its row. */
async function startBare(name, scenario) {
  const env = { BENCH_LIMIT: String(scenario.limit), BENCH_WINDOW_MS: String(scenario.windowMs) };
  const server = await startServer(name, env);
  checkStatuses(`${name} warm-up`, 'allowed', await wrk(server.port, scenario.keys, LOAD.warmupSeconds));
  return { name, server, slices: [] };
}

try {
  if (needsRedis) {
    const server = await startRedisServer();
    const admin = new Redis({ host: '127.0.0.1', port: server.port, commandTimeout: 10_000, lazyConnect: true });
    await admin.connect();
    redis = { ...server, admin };
  }
  const brackets = [];
  for (const scenario of scenarios) {
    for (const group of groups) brackets.push({ scenario, group, bracket: `${scenario}:${group.framework}` });
  }
  const total = brackets.reduce((sum, b) => sum + b.group.contenders.length, 0);
  console.log(
    `bench:http: ${total} contender runs (${scenarios.join(', ')}), each ${LOAD.warmupSeconds} s of warm-up then ${LOAD.seconds} pairs of ${SLICE_SECONDS} s slices beside its bare framework; then exactness for ${exactnessNames.length}`,
  );
  let done = 0;
  for (const { scenario, group, bracket } of brackets) {
    const firstRun = runs.length;
    let bare;
    try {
      bare = await startBare(group.bare, SCENARIOS[scenario]);
    } catch (error) {
      failures.push(`${scenario} ${group.bare}: ${error.message}`);
      console.error(`${scenario} ${group.bare} FAILED: ${error.message}`);
      continue;
    }
    try {
      for (const name of group.contenders) {
        const run = { scenario, bracket, name, role: 'contender' };
        const tag = `[${String(++done).padStart(String(total).length)}/${total}] ${scenario.padEnd(7)} ${name}`;
        try {
          Object.assign(run, await runPaired(run, bare));
          const r = run.result;
          const redisPart = r.redisUs === undefined ? '' : `, redis ${r.redisUs.toFixed(1)} µs/req`;
          console.log(
            `${tag.padEnd(56)} ${Math.round(r.rps).toString().padStart(6)} req/s, × bare ${(r.rps / run.bareResult.rps).toFixed(2)} (pairs ${run.ratios.map((x) => x.toFixed(2)).join(' ')}), node ${r.nodeUs.toFixed(1)} µs/req${redisPart}`,
          );
        } catch (error) {
          run.failure = error.message.split('\n')[0];
          failures.push(`${scenario} ${name}: ${error.message}`);
          console.error(`${tag} FAILED: ${error.message}`);
        }
        runs.push(run);
      }
    } finally {
      await bare.server.stop();
    }
    if (bare.slices.length > 0)
      runs.splice(firstRun, 0, { scenario, bracket, name: group.bare, role: 'bare', result: summarize(bare.slices) });
  }
  for (const name of exactnessNames) {
    try {
      await clearOfBoundary(EXACTNESS.windowMs, 30_000);
      const row = await exactness(name, redis);
      exactnessRows.push(row);
      console.log(
        `exactness ${name}: admitted ${row.total}, over-admitted ${row.over}, statuses ${JSON.stringify(row.statuses)}`,
      );
      if (!row.ok)
        failures.push(`exactness ${name}: over-admitted ${row.over}, statuses ${JSON.stringify(row.statuses)}`);
    } catch (error) {
      exactnessRows.push({ name, failure: error.message.split('\n')[0] });
      failures.push(`exactness ${name}: ${error.message}`);
      console.error(`exactness ${name} FAILED: ${error.message}`);
    }
  }
  // Each framework's offered rates stop at half of its bare maximum measured above (Express' is a
  // tenth of Fastify's: one list for all would leave the fast frameworks at 1,000/s alone).
  const all = new Set();
  for (const group of groups) {
    const names = latencyNames.filter((name) => (LATENCY_CONTENDERS[group.framework] ?? []).includes(name));
    if (names.length === 0) continue;
    const bareMax = runs
      .filter((run) => run.name === group.bare && run.result)
      .reduce((least, run) => Math.min(least, run.result.rps), Number.POSITIVE_INFINITY);
    const groupRates = offeredRates(Number.isFinite(bareMax) ? bareMax : undefined);
    if (groupRates.length === 0) continue;
    for (const rate of groupRates) all.add(rate);
    console.log(
      `\nlatency ${group.framework}: ${names.length} contenders at ${groupRates.join(', ')} req/s, ${latencySeconds} s each`,
    );
    try {
      latencyRows.push(...(await latencyGroup(names, groupRates)));
    } catch (error) {
      failures.push(`latency ${group.framework}: ${error.message}`);
      console.error(`latency ${group.framework} FAILED: ${error.message}`);
    }
  }
  rates = [...all].sort((a, b) => a - b);
} finally {
  if (redis) {
    await redis.admin.quit().catch(() => {});
    await redis.stop();
  }
}

relate(runs);

/**
 * The latency contenders of one framework side by side, idle but the one under load, taking turns
 * of LATENCY_SLICE_SECONDS at each rate; the order rotates and reverses every round.
 */
async function latencyGroup(names, rates) {
  const scenario = SCENARIOS.hot;
  if (redis) await redis.admin.flushall();
  const servers = new Map();
  const rows = new Map(names.map((name) => [name, { name, rates, byRate: new Map() }]));
  try {
    for (const name of names) {
      const env = { BENCH_LIMIT: String(scenario.limit), BENCH_WINDOW_MS: String(scenario.windowMs) };
      if (redis && CONTENDERS.get(name).redis) env.BENCH_REDIS_PORT = String(redis.port);
      servers.set(name, await startServer(name, env));
    }
    for (const name of names) await heySlice(servers.get(name).port, rates[0], LOAD.warmupSeconds);
    const rounds = Math.max(1, Math.round(latencySeconds / LATENCY_SLICE_SECONDS));
    for (const rate of rates) {
      const slices = new Map(names.map((name) => [name, []]));
      for (let round = 0; round < rounds; round++) {
        const rotated = names.map((_, i) => names[(i + round) % names.length]);
        const order = round % 2 === 0 ? rotated : rotated.reverse();
        for (const name of order) {
          slices.get(name).push(await heySlice(servers.get(name).port, rate, LATENCY_SLICE_SECONDS));
        }
      }
      for (const name of names) {
        const result = pooled(rate, slices.get(name));
        // A failed response (a peer's Redis call past its 100 ms timeout on a busy machine) is shown in its cell.
        result.failed = Object.entries(result.statuses).reduce(
          (n, [status, count]) => (status.startsWith('2') ? n : n + count),
          0,
        );
        rows.get(name).byRate.set(rate, result);
        console.log(
          `latency ${name.padEnd(34)} ${String(rate).padStart(6)}/s: p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms (${Math.round(result.achieved)}/s)`,
        );
      }
    }
  } finally {
    for (const server of servers.values()) await server.stop();
  }
  return [...rows.values()];
}

function packageVersion(name) {
  const file = new URL(`../node_modules/${name}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

function gitState() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'packages', 'lua'], { encoding: 'utf8' }).trim();
    return dirty === '' ? commit : `${commit} + uncommitted changes in packages/ or lua/`;
  } catch {
    return 'unknown commit';
  }
}

const seconds = Math.round((Date.now() - started) / 1000);
const peers = [
  'express-rate-limit',
  'rate-limit-redis',
  'rate-limiter-flexible',
  '@fastify/rate-limit',
  'hono-rate-limiter',
  'ioredis',
  'express',
  'fastify',
  'hono',
  '@hono/node-server',
];
const filters = [
  only && `BENCH_ONLY=${only}`,
  scenarioFilter && `BENCH_SCENARIOS=${scenarioFilter}`,
  process.env.BENCH_DURATION && `BENCH_DURATION=${process.env.BENCH_DURATION}`,
  process.env.BENCH_RATES && `BENCH_RATES=${process.env.BENCH_RATES}`,
  process.env.BENCH_LATENCY_SECONDS && `BENCH_LATENCY_SECONDS=${process.env.BENCH_LATENCY_SECONDS}`,
].filter(Boolean);
const meta = {
  command: `${filters.join(' ')}${filters.length ? ' ' : ''}pnpm bench:http`,
  date: new Date(started).toISOString(),
  elapsed: `${Math.floor(seconds / 60)} min ${seconds % 60} s`,
  versions: [
    `Node ${process.version}`,
    `redis-server ${redisVersion ?? 'not used'}`,
    wrkVersion.split(' ').slice(0, 2).join(' '),
    ...peers.map((name) => `${name} ${packageVersion(name)}`),
    `@floodgate/* ${packageVersion('@floodgate/core')} at ${gitState()}`,
  ].join('; '),
  machine: `${cpus().length} cores × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Linux ${release()}, load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end`,
  cores: cpus().length,
};

console.log(`\n${renderText(runs, scenarios, exactnessRows)}\n`);
const markdown = `${renderMarkdown({ runs, scenarios, exactnessRows, meta, failures })}${renderLatency(latencyRows, rates, latencySeconds)}`;
const partial = only !== undefined || scenarioFilter !== undefined || failures.length > 0;
if (partial) {
  const file = new URL('./last-partial.md', import.meta.url);
  writeFileSync(file, `<!-- written by a partial or failed run of pnpm bench:http; not committed -->\n\n${markdown}`);
  console.log(
    `bench:http: ${failures.length > 0 ? 'failed' : 'partial'} run written to bench/http/last-partial.md (RESULTS.md untouched) in ${meta.elapsed}`,
  );
} else {
  writeSection(HTTP_SECTION, markdown);
  console.log(`bench:http: bench/RESULTS.md written (its HTTP section) in ${meta.elapsed}`);
}
if (failures.length > 0) {
  console.error(`\nbench:http: ${failures.length} failure(s):\n${failures.map((f) => `- ${f}`).join('\n')}`);
  process.exit(1);
}
