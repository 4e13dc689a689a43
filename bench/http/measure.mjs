// One measurement: wrk against a contender's port, with the node and redis-server CPU it cost
// (from /proc) and what Redis ran for it (INFO commandstats, reset just before).
import { DENIED_KEY, HOT_KEY, LOAD } from './config.mjs';
import { cpuMicros, runCollecting } from './processes.mjs';

const LUA = new URL('./load.lua', import.meta.url).pathname;
export const SCRIPT_COMMANDS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);
/** Our own admin commands, left out of the counts. */
const ADMIN_COMMANDS = new Set(['info', 'config|resetstat']);

/** The arguments after `--` that load.lua reads, for a scenario's `keys`. */
function loadArgs(keys) {
  if (keys === 'spread') return ['spread', String(LOAD.keys)];
  return ['fixed', '0', keys === 'hot' ? HOT_KEY : DENIED_KEY];
}

/** Runs wrk for `seconds` and returns load.lua's summary (requests, latency µs, statuses, errors). */
export async function wrk(port, keys, seconds) {
  const args = [`-t${LOAD.threads}`, `-c${LOAD.connections}`, `-d${seconds}s`, '--latency', '-s', LUA];
  args.push(`http://127.0.0.1:${port}/`, '--', ...loadArgs(keys));
  const { code, output } = await runCollecting('wrk', args);
  const line = output.split('\n').find((text) => text.startsWith('WRKJSON '));
  if (code !== 0 || line === undefined) throw new Error(`wrk ${args.join(' ')} failed (${code}):\n${output}`);
  const result = JSON.parse(line.slice('WRKJSON '.length));
  result.statuses = Object.fromEntries(Object.entries(result.statuses).map(([status, n]) => [Number(status), n]));
  return result;
}

/** INFO commandstats as { command: { calls, usec } }, without our own admin commands. */
export async function commandStats(admin) {
  const text = await admin.info('commandstats');
  const stats = {};
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    if (!ADMIN_COMMANDS.has(match[1])) stats[match[1]] = { calls: Number(match[2]), usec: Number(match[3]) };
  }
  return stats;
}

/**
 * One slice of a measurement: resets Redis' command stats, reads both processes' CPU, runs wrk for
 * `seconds`, reads them again. `redis` is { admin, pid } or undefined. Raw sums: see summarize().
 */
export async function measureSlice(server, keys, redis, seconds) {
  if (redis) await redis.admin.config('RESETSTAT');
  const node0 = cpuMicros(server.pid);
  const redis0 = redis ? cpuMicros(redis.pid) : 0;
  const load = await wrk(server.port, keys, seconds);
  const nodeCpu = cpuMicros(server.pid) - node0;
  const redisCpu = redis ? cpuMicros(redis.pid) - redis0 : 0;
  const commands = redis ? await commandStats(redis.admin) : undefined;
  return { load, nodeCpu, redisCpu, commands };
}

/** The figures of a contender (or of a bare framework) over its slices, pooled. */
export function summarize(slices) {
  let n = 0;
  let durationUs = 0;
  let nodeCpu = 0;
  let redisCpu = 0;
  let socketErrors = 0;
  const statuses = {};
  const commands = slices[0].commands === undefined ? undefined : {};
  for (const { load, ...slice } of slices) {
    n += load.requests;
    durationUs += load.durationUs;
    nodeCpu += slice.nodeCpu;
    redisCpu += slice.redisCpu;
    socketErrors += load.errors.connect + load.errors.read + load.errors.write + load.errors.timeout;
    for (const [status, count] of Object.entries(load.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
    if (commands === undefined) continue;
    for (const [name, stat] of Object.entries(slice.commands)) {
      const sum = commands[name] ?? { calls: 0, usec: 0 };
      sum.calls += stat.calls;
      sum.usec += stat.usec;
      commands[name] = sum;
    }
  }
  let scripts = 0;
  let scriptUsec = 0;
  let calls = 0;
  let usec = 0;
  for (const [name, stat] of Object.entries(commands ?? {})) {
    calls += stat.calls;
    usec += stat.usec;
    if (SCRIPT_COMMANDS.has(name)) {
      scripts += stat.calls;
      scriptUsec += stat.usec;
    }
  }
  const non2xx = Object.entries(statuses).reduce((sum, [status, count]) => sum + (Number(status) < 300 ? 0 : count), 0);
  const redis = commands !== undefined;
  return {
    requests: n,
    rps: n / (durationUs / 1e6),
    // Each slice's percentile, the median over slices (wrk reports no histogram to pool).
    p50: median(slices.map((slice) => slice.load.p50Us)),
    p99: median(slices.map((slice) => slice.load.p99Us)),
    statuses: Object.fromEntries(Object.entries(statuses).map(([status, count]) => [Number(status), count])),
    non2xx,
    socketErrors,
    nodeUs: nodeCpu / n,
    redisUs: redis ? redisCpu / n : undefined,
    commands,
    cmdsPerReq: redis ? calls / n : undefined,
    scriptsPerReq: redis ? scripts / n : undefined,
    scriptUsecPerCall: scripts > 0 ? scriptUsec / scripts : undefined,
    usecPerReq: redis ? usec / n : undefined,
  };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
