// pnpm bench:regions — RegionalStore with three redis-servers standing for three regions, every
// cross-region link behind a proxy that delays each chunk 40 ms each way. For 1, 10 and 10,000
// keys, traffic even or skewed 80/10/10 across regions, it measures: admitted / limit in every
// window (partition and heal included), the share of decisions without a cross-region round trip
// under 80 % of the limit, p50/p99 against RedisStore on the region's own Redis (same run, same
// requests), and the limit left unused once idle regions have given their leases back. Two
// SIMULATED peers (bench/regions/peer-models.mjs) replay the recorded requests.
import { cpus, totalmem } from 'node:os';
import { fixedWindow } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { RegionalStore } from '@floodgate/regions';
import { Redis } from 'ioredis';
import { redisServerVersion, startRedisServer } from '../redis-server.mjs';
import { writeSection } from '../results-file.mjs';
import { quantile } from '../stats.mjs';
import { startDelayProxy } from './delay-proxy.mjs';
import { unkeyModel, upstashModel } from './peer-models.mjs';

const DELAY_MS = 40;
const NAMES = ['ap', 'eu', 'us'];
const REFRESH = 500;
const SCENARIOS = [
  { keys: 1, limit: 1000, window: 4000, concurrency: 16, over: 2 },
  { keys: 10, limit: 100, window: 4000, concurrency: 16, over: 2 },
  { keys: 10_000, limit: 1, window: 12_000, concurrency: 64, over: 1.2 },
  // The common case at 10,000 keys: a limit that splits among regions, each key far from it. Under
  // 80 % every key gets UNDER of its limit (70 % of 10,000 x 100 would be 700,000 requests a window:
  // more than one process on two shared cores sends); the over-limit phases drive OVER_KEYS of them.
  { keys: 10_000, limit: 100, window: 12_000, concurrency: 64, over: 1.2, under: 0.03, overKeys: 100 },
];
const TRAFFIC = [
  { name: 'even', weights: [1 / 3, 1 / 3, 1 / 3] },
  { name: '80/10/10', weights: [0.8, 0.1, 0.1] },
];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const started = Date.now();

// Each phase starts with a fresh window: it waits for the next boundary (the homes decide on their
// Redis TIME, the same machine clock as Date.now here).
const clock = Date.now;
async function startWindow(window) {
  const now = Date.now();
  const start = now - (now % window) + window;
  await sleep(start - now + 5);
  return start;
}

function client(port) {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    retryStrategy: () => 50,
    lazyConnect: true,
  });
  redis.on('error', () => {});
  return redis;
}

const servers = await Promise.all(NAMES.map(() => startRedisServer()));
// links[from][to]: the proxy region `from`'s processes reach region `to`'s Redis through.
const links = {};
for (const [i, from] of NAMES.entries()) {
  links[from] = {};
  for (const [j, to] of NAMES.entries())
    if (i !== j) links[from][to] = await startDelayProxy(servers[j].port, DELAY_MS);
}
const allClients = [];
async function regionClients(region) {
  const entries = NAMES.map((to, j) => {
    const redis = client(to === region ? servers[j].port : links[region][to].port);
    allClients.push(redis);
    return [to, redis];
  });
  await Promise.all(entries.map(([, redis]) => redis.connect()));
  return Object.fromEntries(entries);
}

/** `n` requests: request i goes to key i % keys, and to a region drawn by `weights` (a fixed sequence). */
function requestsOf(n, keys, weights, only) {
  const byRegion = NAMES.map(() => []);
  for (let i = 0; i < n; i++) {
    const u = (i * 0.6180339887498949) % 1;
    let region = 0;
    for (let acc = weights[0]; u >= acc && region < NAMES.length - 1; acc += weights[region + 1]) region++;
    if (only !== undefined) region = only;
    byRegion[region].push(i % keys);
  }
  return byRegion;
}

/** Runs each region's requests with `concurrency` workers, all regions at once; records every decision. */
async function runPhase(stores, byRegion, algorithm, concurrency, windowStart, prefix) {
  const records = [];
  let n = 0;
  await Promise.all(
    byRegion.map((keys, region) => {
      let next = 0;
      const worker = async () => {
        while (next < keys.length) {
          const key = `fg:ip:${prefix}:{${keys[next++]}}`;
          const t0 = performance.now();
          const t = clock() - windowStart;
          const [outcome] = await stores[region].consume([{ key, algorithm, cost: 1 }], `b${n++}`);
          records.push({
            t,
            region,
            key,
            ms: performance.now() - t0,
            allowed: outcome.allowed,
            resetAt: outcome.resetAt,
          });
        }
      };
      return Promise.all(Array.from({ length: concurrency }, worker));
    }),
  );
  return records;
}

/**
 * Runs each region's requests open loop: spread evenly over `duration` ms (a steady rate), each
 * sent when due whatever the answers before it; records every decision.
 */
async function runPaced(stores, byRegion, algorithm, duration, windowStart, prefix) {
  const records = [];
  const pending = [];
  let n = 0;
  const begin = performance.now();
  const cursors = byRegion.map(() => 0);
  while (cursors.some((c, region) => c < byRegion[region].length)) {
    const elapsed = performance.now() - begin;
    for (const [region, keys] of byRegion.entries()) {
      while (cursors[region] < keys.length && (cursors[region] * duration) / keys.length <= elapsed) {
        const key = `fg:ip:${prefix}:{${keys[cursors[region]++]}}`;
        const t0 = performance.now();
        const t = clock() - windowStart;
        pending.push(
          stores[region].consume([{ key, algorithm, cost: 1 }], `p${n++}`).then(([outcome]) => {
            records.push({
              t,
              region,
              key,
              ms: performance.now() - t0,
              allowed: outcome.allowed,
              resetAt: outcome.resetAt,
            });
          }),
        );
      }
    }
    await sleep(2);
  }
  await Promise.all(pending);
  return records;
}

/** The window a decision was counted in: its resetAt, moved into this clock, is within a round trip of the home's. */
const windowOf = (record, window) => Math.round(record.resetAt / window);

/** The largest admitted / limit over every (key, window) of the records. */
function maxRatio(records, limit, window) {
  const counts = new Map();
  for (const r of records) {
    if (!r.allowed) continue;
    const id = `${r.key}@${windowOf(r, window)}`;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return Math.max(0, ...counts.values()) / limit;
}

function modelRatio(model, records, options) {
  const admitted = model(records, options);
  return Math.max(0, ...admitted.values()) / options.limit;
}

const statsSum = (stores) =>
  stores.reduce(
    (sum, store) => {
      const s = store.stats();
      return {
        local: sum.local + s.local,
        remote: sum.remote + s.remote,
        unreachable: sum.unreachable + s.unreachable,
      };
    },
    { local: 0, remote: 0, unreachable: 0 },
  );

const rows = [];
let scenarioIndex = 0;
for (const scenario of SCENARIOS) {
  for (const traffic of TRAFFIC) {
    const { keys, limit, window, concurrency, over } = scenario;
    const under = scenario.under ?? 0.7;
    const overKeys = scenario.overKeys ?? keys;
    const tag = `s${scenarioIndex++}`;
    const algorithm = fixedWindow({ limit, window });
    const stores = [];
    const baselines = [];
    const locals = [];
    for (const region of NAMES) {
      const regions = await regionClients(region);
      locals.push(regions[region]);
      stores.push(
        new RegionalStore({
          region,
          regions,
          homeTimeout: 300,
          lease: { refresh: REFRESH },
          prefix: `rg${tag}`,
        }),
      );
      baselines.push(new RedisStore({ client: regions[region], prefix: `single${tag}`, timeout: 1000 }));
    }
    const budget = limit * keys;
    const overBudget = limit * overKeys;
    const ratios = [];

    // P0: the same requests on RedisStore, each region on its own Redis (no cross-region link).
    const paced = 0.8 * window;
    let windowStart = await startWindow(window);
    const underRequests = requestsOf(Math.floor(under * budget), keys, traffic.weights);
    const single = await runPaced(baselines, underRequests, algorithm, paced, windowStart, 'base');

    // P1: under 80 % of the limit.
    windowStart = await startWindow(window);
    let before = statsSum(stores);
    const p1 = await runPaced(stores, underRequests, algorithm, paced, windowStart, 'k');
    let after = statsSum(stores);
    const localShare = (after.local - before.local) / (after.local - before.local + after.remote - before.remote);
    ratios.push(maxRatio(p1, limit, window));
    const p1Overran = clock() - windowStart > window;

    // P2: every region leases, then only the busiest keeps sending: what idle leases leave unused.
    windowStart = await startWindow(window);
    const warm = await runPhase(
      stores,
      requestsOf(Math.floor(0.3 * overBudget), overKeys, traffic.weights),
      algorithm,
      concurrency,
      windowStart,
      'k',
    );
    await Promise.all(stores.map((store) => store.idle()));
    await sleep(REFRESH * 1.5 + 100);
    await Promise.all(stores.map((store) => store.idle()));
    const busiest = traffic.weights.indexOf(Math.max(...traffic.weights));
    // What the idle regions still hold, one refresh interval and a half after their last request.
    let heldIdle = 0;
    const now = Date.now();
    for (const [region, redis] of locals.entries()) {
      if (region === busiest) continue;
      const pipeline = redis.pipeline();
      for (let k = 0; k < overKeys; k++) pipeline.hmget(`rg${tag}.pool:fg:ip:k:{${k}}`, 'u', 'e');
      for (const [, reply] of await pipeline.exec())
        if (reply[0] !== null && Number(reply[1]) > now) heldIdle += Number(reply[0]);
    }
    const p2 = await runPhase(
      stores,
      requestsOf(Math.floor(over * overBudget), overKeys, traffic.weights, busiest),
      algorithm,
      concurrency,
      windowStart,
      'k',
    );
    const firstWindow = Math.round((windowStart + window) / window);
    const admittedP2 = [...warm, ...p2].filter((r) => r.allowed && windowOf(r, window) === firstWindow).length;
    const unused = 1 - admittedP2 / overBudget;
    ratios.push(maxRatio([...warm, ...p2], limit, window));

    // P3: region us cut off from the others (both ways) for a whole window of over-limit traffic.
    windowStart = await startWindow(window);
    const cut = [...Object.values(links.us), ...NAMES.filter((n) => n !== 'us').map((n) => links[n].us)];
    for (const link of cut) link.cut();
    before = statsSum(stores);
    const p3 = await runPhase(
      stores,
      requestsOf(Math.floor(over * overBudget), overKeys, traffic.weights),
      algorithm,
      concurrency,
      windowStart,
      'k',
    );
    after = statsSum(stores);
    ratios.push(maxRatio(p3, limit, window));
    for (const link of cut) link.heal();
    await sleep(300);

    // P4: healed, over-limit traffic again.
    windowStart = await startWindow(window);
    const p4 = await runPhase(
      stores,
      requestsOf(Math.floor(over * overBudget), overKeys, traffic.weights),
      algorithm,
      concurrency,
      windowStart,
      'k',
    );
    ratios.push(maxRatio(p4, limit, window));

    const modelOptions = { limit, delayMs: DELAY_MS, regions: NAMES.length };
    const stretched = p4.map((r) => ({ ...r, t: (r.t * 60_000) / window }));
    // The models see one window: the after-heal phase's first.
    const p4First = p4.filter((r) => r.t < window);
    const lat = (records) => records.map((r) => r.ms);
    const p1Latency = lat(p1);
    const singleLatency = lat(single);
    rows.push({
      keys,
      traffic: traffic.name,
      limit,
      window,
      maxRatio: Math.max(...ratios),
      localShare,
      p50: quantile(p1Latency, 0.5),
      p99: quantile(p1Latency, 0.99),
      singleP50: quantile(singleLatency, 0.5),
      singleP99: quantile(singleLatency, 0.99),
      unused,
      heldIdle: heldIdle / overBudget,
      under,
      overKeys,
      unreachable: after.unreachable - before.unreachable,
      p1Overran,
      upstash: modelRatio(upstashModel, p4First, modelOptions),
      unkey: modelRatio(unkeyModel, p4First, modelOptions),
      upstash60: modelRatio(
        upstashModel,
        stretched.filter((r) => r.t < 60_000),
        modelOptions,
      ),
      unkey60: modelRatio(
        unkeyModel,
        stretched.filter((r) => r.t < 60_000),
        modelOptions,
      ),
    });
    console.log(JSON.stringify(rows.at(-1)));
    await Promise.all(stores.map((store) => store.close()));
  }
}

for (const redis of allClients) redis.disconnect();
for (const from of NAMES) for (const link of Object.values(links[from])) await link.close();
await Promise.all(servers.map((server) => server.stop()));

const f = (x, d = 2) => x.toFixed(d);
const pct = (x) => `${(100 * x).toFixed(1)} %`;
const cpu = cpus()[0]?.model ?? 'unknown CPU';
const table = rows
  .map(
    (r) =>
      `| ${r.keys.toLocaleString('en')} | ${r.traffic} | ${r.limit} / ${r.window / 1000} s${r.under !== 0.7 ? ' ²' : ''} | ${f(r.maxRatio, 3)} | ${pct(r.localShare)}${r.p1Overran ? ' ¹' : ''} | ${f(r.p50)} / ${f(r.p99)} | ${f(r.singleP50)} / ${f(r.singleP99)} | ${f(r.p50 - r.singleP50)} | ${pct(r.heldIdle)} | ${pct(r.unused)} | ${f(r.upstash, 3)} / ${f(r.upstash60, 3)} | ${f(r.unkey, 3)} / ${f(r.unkey60, 3)} |`,
  )
  .join('\n');
const body = `## Regions: \`pnpm bench:regions\`

Command: \`pnpm bench:regions\` (node bench/regions/run.mjs after the build), ${new Date(started).toISOString()},
${Math.round((Date.now() - started) / 1000)} s. Machine: ${cpus().length} cores × ${cpu}; ${Math.round(totalmem() / 2 ** 30)} GiB;
Node ${process.version}; redis-server ${redisServerVersion() ?? 'unknown'}. Shared and noisy: compare within a row.

Three redis-servers stand for three regions (ap, eu, us); every cross-region link goes through a
proxy adding ${DELAY_MS} ms each way. One Node process runs the three regions' stores (RegionalStore,
\`lease.refresh\` ${REFRESH} ms, \`homeTimeout\` 300 ms, defaults otherwise: each home on its Redis
TIME). fixedWindow; request i goes to key i mod keys. Phases, each in a fresh window: the
single-Redis baseline (RedisStore on each region's own Redis, the same requests, paced the same
way); under 80 % (70 % of the limit, sent at a steady rate over 80 % of the window); idle leases (30 % of the limit from every region,
then ${REFRESH * 1.5 + 100} ms of quiet, then only the busiest region sends ${SCENARIOS[0].over}× the limit — 1.2× for
10,000 keys); a partition (us cut off both ways for a window of over-limit traffic); after the heal.
The last three phases are closed loop: 16 workers per region (64 for 10,000 keys).

| keys | traffic | limit / window | max admitted / limit, any key, any window (all phases) | no cross-region trip, under 80 % | p50 / p99 ms, regional | p50 / p99 ms, single Redis | p50 difference ms | held by idle regions 1.5 refresh intervals after their last request | limit unused in that window, busy region sending 2× (1.2× for 10,000 keys) | SIMULATED Upstash model: max admitted / limit (recorded times / stretched to 60 s) | SIMULATED Unkey model: same |
| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${table}

Latency is per decision, under 80 % of the limit, with every region sending at once. "Held by idle
regions" is what the idle-leases target is about: the units the quiet regions still held once a
refresh interval and a half had passed (read from their Redis). "Limit unused" is the whole
window's shortfall with the busy region alone sending: where it is above what the idle regions
held, the busy region's 16 workers did not get through the limit before the window ended (near
the limit each request waits on an 80 ms round trip to the home), not leases left idle.
"No cross-region trip" counts decisions made from the region's pool or a home in its own region
(\`store.stats()\`). With 10,000 keys of limit 1, every key is cold in every window: its first
request in a region needs its home, so the share is about the third of keys homed locally plus what
the pools cover. Over-limit phases are where admitted / limit is tested.
${rows.some((r) => r.p1Overran) ? '\n¹ The phase took longer than its window.\n' : ''}${rows
  .filter((r) => r.under !== 0.7)
  .slice(0, 1)
  .map(
    (r) =>
      `\n² Under 80 %, each of the ${r.keys.toLocaleString('en')} keys gets ${100 * r.under} % of its limit (not 70 %: that would be ${(0.7 * r.keys * r.limit).toLocaleString('en')} requests in a window); the other phases drive ${r.overKeys} of the keys.\n`,
  )
  .join('')}
The two right-hand columns are **simulations** (bench/regions/peer-models.mjs), models of the peers'
published designs, not their code: Upstash MultiRegionRatelimit's merge (every request's id written
to every region, decided on the region's own hash; remote writes arrive ${DELAY_MS} ms later) and Unkey's
global counters (a region publishes its count only past 50 % of the limit; pushes and pulls every
10 s ± 20 %). They replay the after-heal phase's recorded request times and regions; "stretched"
spreads the same requests over a 60 s window (Unkey propagates across regions only for windows of a
minute or more).
`;
writeSection('bench:regions', body);
console.log(body);
