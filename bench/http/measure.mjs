// One measurement: wrk against a contender's port, with the node and redis-server CPU it cost
// (from /proc) and what Redis ran for it (INFO commandstats, reset just before).
import { DENIED_KEY, HOT_KEY, LOAD } from './config.mjs';
import { cpuMicros, runCollecting } from './processes.mjs';

const LUA = new URL('./load.lua', import.meta.url).pathname;
const SCRIPT_COMMANDS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);
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
async function commandStats(admin) {
  const text = await admin.info('commandstats');
  const stats = {};
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    if (!ADMIN_COMMANDS.has(match[1])) stats[match[1]] = { calls: Number(match[2]), usec: Number(match[3]) };
  }
  return stats;
}

/**
 * Measures one warmed contender: resets Redis' command stats, reads both processes' CPU, runs wrk
 * for LOAD.seconds, reads them again. `redis` is { admin, pid } or undefined.
 */
export async function measure(server, keys, redis) {
  if (redis) await redis.admin.config('RESETSTAT');
  const node0 = cpuMicros(server.pid);
  const redis0 = redis ? cpuMicros(redis.pid) : 0;
  const load = await wrk(server.port, keys, LOAD.seconds);
  const nodeCpu = cpuMicros(server.pid) - node0;
  const redisCpu = redis ? cpuMicros(redis.pid) - redis0 : 0;
  const commands = redis ? await commandStats(redis.admin) : {};
  const n = load.requests;
  let scripts = 0;
  let scriptUsec = 0;
  let calls = 0;
  let usec = 0;
  for (const [name, stat] of Object.entries(commands)) {
    calls += stat.calls;
    usec += stat.usec;
    if (SCRIPT_COMMANDS.has(name)) {
      scripts += stat.calls;
      scriptUsec += stat.usec;
    }
  }
  const non2xx = Object.entries(load.statuses).reduce((sum, [status, count]) => sum + (status < 300 ? 0 : count), 0);
  const socketErrors = load.errors.connect + load.errors.read + load.errors.write + load.errors.timeout;
  return {
    requests: n,
    rps: n / (load.durationUs / 1e6),
    p50: load.p50Us,
    p99: load.p99Us,
    statuses: load.statuses,
    non2xx,
    socketErrors,
    nodeUs: nodeCpu / n,
    redisUs: redis ? redisCpu / n : undefined,
    commands: redis ? commands : undefined,
    cmdsPerReq: redis ? calls / n : undefined,
    scriptsPerReq: redis ? scripts / n : undefined,
    scriptUsecPerCall: scripts > 0 ? scriptUsec / scripts : undefined,
    usecPerReq: redis ? usec / n : undefined,
  };
}
