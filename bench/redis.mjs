// RedisStore against a private redis-server, side by side with MemoryStore, on the same
// concurrent workload (inflight.mjs): auto-pipelining off vs on, one layer vs two layers.
import { RedisStore } from '../packages/redis/dist/index.js';
import { algorithms, core } from './algorithms.mjs';
import { drive, requestStream } from './inflight.mjs';
import { adminClient, commandCalls, countTraffic, recommendedClient, serverVersion } from './redis-clients.mjs';
import { startRedisServer } from './redis-server.mjs';
import { breathe } from './stats.mjs';

// Short slices of each run, interleaved, so that a burst of load from elsewhere hits all four alike.
export const REDIS = { slices: 12, redisMs: 80, memoryMs: 40, warmupMs: 50 };
const SCRIPT_COMMANDS = new Set(['evalsha', 'eval', 'evalsha_ro', 'eval_ro', 'fcall', 'fcall_ro']);

/** The four runs compared for every algorithm; `target` names the store they use. */
const CONFIGS = [
  { id: 'memory', target: 'memory', layers: 1, ms: REDIS.memoryMs },
  { id: 'off', target: 'off', layers: 1, ms: REDIS.redisMs },
  { id: 'on', target: 'on', layers: 1, ms: REDIS.redisMs },
  { id: 'on2', target: 'on', layers: 2, ms: REDIS.redisMs },
];

/** Commands seen by the server between two INFO commandstats snapshots: scripts, and inside them. */
function serverDelta(before, after) {
  const delta = { scripts: 0, inner: 0 };
  for (const [name, calls] of Object.entries(after)) {
    if (name === 'info') continue;
    delta[SCRIPT_COMMANDS.has(name) ? 'scripts' : 'inner'] += calls - (before[name] ?? 0);
  }
  return delta;
}

/** One slice of one run, added to `total` (decisions, time, and for Redis what crossed the wire). */
async function slice(config, target, stream, admin, total) {
  if (target.traffic === undefined) return add(total, await drive(target.store, stream, config.ms));
  const sent = { ...target.traffic };
  const stats = await commandCalls(admin);
  const result = await drive(target.store, stream, config.ms);
  const server = serverDelta(stats, await commandCalls(admin));
  const commands = target.traffic.commands - sent.commands;
  return add(total, { ...result, ...server, commands, writes: target.traffic.writes - sent.writes });
}

const FIELDS = ['seconds', 'decided', 'allowed', 'errors', 'commands', 'writes', 'scripts', 'inner'];

function add(total, result) {
  for (const field of FIELDS) total[field] += result[field] ?? 0;
  total.rates.push(result.decided / result.seconds);
}

/** Totals per run for one algorithm, after one warm-up slice each (script load, JIT). */
async function measureAlgorithm(name, algorithm, targets, admin) {
  const totals = {};
  const streams = {};
  for (const config of CONFIGS) {
    totals[config.id] = { ...Object.fromEntries(FIELDS.map((field) => [field, 0])), rates: [] };
    streams[config.id] = requestStream(algorithm, config.layers, `${name}:${config.id}:`);
    const warmup = requestStream(algorithm, config.layers, `warm:${name}:${config.id}:`);
    await drive(targets[config.target].store, warmup, REDIS.warmupMs);
  }
  for (let round = 0; round < REDIS.slices; round++) {
    for (let i = 0; i < CONFIGS.length; i++) {
      const config = CONFIGS[(i + round) % CONFIGS.length];
      await slice(config, targets[config.target], streams[config.id], admin, totals[config.id]);
      await breathe();
    }
  }
  return { name, totals };
}

async function redisTarget(port, pipelining) {
  const client = await recommendedClient(port, pipelining);
  return { client, store: new RedisStore({ client }), traffic: countTraffic(client) };
}

const rate = (total) => total.decided / total.seconds;

/** Starts the private server, measures every algorithm, stops everything it started. */
export async function runRedis(log) {
  const server = await startRedisServer();
  const clients = [];
  try {
    const admin = await adminClient(server.port);
    clients.push(admin);
    const off = await redisTarget(server.port, false);
    const on = await redisTarget(server.port, true);
    clients.push(off.client, on.client);
    const version = await serverVersion(admin);
    const rows = [];
    for (const [name, make] of algorithms) {
      const memory = { store: new core.MemoryStore() };
      const row = await measureAlgorithm(name, make(), { memory, off, on }, admin);
      rows.push(row);
      const [m, a, b, c] = CONFIGS.map((config) => Math.round(rate(row.totals[config.id])));
      log(`redis  ${name.padEnd(14)} off ${a}/s  on ${b}/s  2 layers ${c}/s  memory ${m}/s`);
    }
    return { rows, version };
  } finally {
    await Promise.allSettled(clients.map((client) => client.quit()));
    await server.stop();
  }
}

export { rate };
