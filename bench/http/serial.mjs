// What one request costs when nothing else is in flight: `node bench/http/serial.mjs [contender...]`
// (default: Fastify's latency contenders). One keep-alive connection sends requests one after the
// other (each waits for the last answer), so no turn holds two requests and batching has nothing to
// batch. Per contender: the wall time per request, the CPU the server process and redis-server
// spent per request (perf stat's task-clock when perf is installed, else /proc, in 10 ms ticks), and
// Redis' own usec_per_call of the scripts. Contenders take turns, rounds in an order that rotates
// and reverses, so a drift of the machine falls on all; medians of the rounds are shown. Writes
// bench/http/last-serial.md.
import { spawn, spawnSync } from 'node:child_process';
import { request, Agent } from 'node:http';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { redisServerVersion, startRedisServer } from '../redis-server.mjs';
import { median } from '../stats.mjs';
import { CONTENDERS, HOT_KEY, SCENARIOS } from './config.mjs';
import { LATENCY_CONTENDERS } from './latency.mjs';
import { commandStats, SCRIPT_COMMANDS } from './measure.mjs';
import { cpuMicros, startServer } from './processes.mjs';

const names = process.argv.length > 2 ? process.argv.slice(2) : LATENCY_CONTENDERS.fastify;
for (const name of names) {
  if (!CONTENDERS.has(name)) {
    console.error(`unknown contender '${name}'; known: ${[...CONTENDERS.keys()].join(', ')}`);
    process.exit(2);
  }
}
const REQUESTS = Number(process.env.SERIAL_REQUESTS ?? 5000);
const ROUNDS = Number(process.env.SERIAL_ROUNDS ?? 6);
const WARMUP = 2000;
const hasPerf = spawnSync('perf', ['--version']).status === 0;

/** CPU time a process spends from now until the returned function is called, in µs. */
async function cpuMeter(pid) {
  if (!hasPerf) {
    const before = cpuMicros(pid);
    return async () => cpuMicros(pid) - before;
  }
  const perf = spawn('perf', ['stat', '-x', ',', '-e', 'task-clock', '-p', String(pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  perf.stderr.on('data', (chunk) => {
    output += chunk;
  });
  // perf attaches before it prints anything; give it the time to (it counts nothing of ours until then).
  await new Promise((resolve) => setTimeout(resolve, 200));
  return async () => {
    perf.kill('SIGINT');
    await new Promise((resolve) => perf.once('exit', resolve));
    const line = output.split('\n').find((l) => l.includes('task-clock'));
    return Number(line?.split(',')[0]) * 1000;
  };
}

const scenario = SCENARIOS.hot;
const redis = await startRedisServer();
const admin = new Redis({ port: redis.port, host: '127.0.0.1', lazyConnect: true });
await admin.connect();
const servers = new Map();
const rows = new Map(names.map((name) => [name, { wall: [], node: [], redis: [], script: [] }]));
try {
  for (const name of names) {
    const env = { BENCH_LIMIT: String(scenario.limit), BENCH_WINDOW_MS: String(scenario.windowMs) };
    if (CONTENDERS.get(name).redis) env.BENCH_REDIS_PORT = String(redis.port);
    const server = await startServer(name, env);
    server.agent = new Agent({ keepAlive: true, maxSockets: 1 });
    servers.set(name, server);
  }
  const one = (server) =>
    new Promise((resolve, reject) => {
      const headers = { 'x-api-key': HOT_KEY };
      const req = request({ host: '127.0.0.1', port: server.port, path: '/', agent: server.agent, headers }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${server.name} answered ${res.statusCode}`));
        res.resume();
        res.once('end', resolve);
      });
      req.once('error', reject);
      req.end();
    });
  for (const server of servers.values()) for (let i = 0; i < WARMUP; i++) await one(server);
  for (let round = 0; round < ROUNDS; round++) {
    const rotated = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of round % 2 === 0 ? rotated : rotated.reverse()) {
      const server = servers.get(name);
      await admin.config('RESETSTAT');
      const nodeCpu = await cpuMeter(server.pid);
      const redisCpu = await cpuMeter(redis.pid);
      const started = process.hrtime.bigint();
      for (let i = 0; i < REQUESTS; i++) await one(server);
      const wall = Number(process.hrtime.bigint() - started) / 1000 / REQUESTS;
      const row = rows.get(name);
      row.wall.push(wall);
      row.node.push((await nodeCpu()) / REQUESTS);
      row.redis.push((await redisCpu()) / REQUESTS);
      let calls = 0;
      let usec = 0;
      for (const [command, stat] of Object.entries(await commandStats(admin))) {
        if (!SCRIPT_COMMANDS.has(command)) continue;
        calls += stat.calls;
        usec += stat.usec;
      }
      if (calls > 0) row.script.push(usec / calls);
      console.log(`${name.padEnd(32)} round ${round + 1}: ${wall.toFixed(1)} µs/request`);
    }
  }
} finally {
  for (const server of servers.values()) await server.stop();
  admin.disconnect();
  await redis.stop();
}

const cell = (values) => (values.length === 0 ? '—' : median(values).toFixed(1));
const lines = [
  '## One request at a time',
  '',
  `Command: \`node bench/http/serial.mjs ${process.argv.slice(2).join(' ')}\`, ${new Date().toISOString()}; ${cpus().length} cores × ${cpus()[0]?.model.trim()}, load average ${loadavg()[0].toFixed(2)} at the end; Node ${process.version}; redis-server ${redisServerVersion()}.`,
  '',
  `One keep-alive connection, each request sent when the last is answered (nothing to batch), one hot key under a limit it never reaches; ${WARMUP} requests of warm-up, then ${ROUNDS} rounds of ${REQUESTS} per contender, taking turns. Medians of the rounds. **node** and **redis** are the CPU time of the server process (all threads) and of redis-server per request, from ${hasPerf ? '`perf stat -e task-clock`' : '/proc (10 ms ticks)'}; **script** is Redis' usec_per_call of EVAL/EVALSHA/FCALL.`,
  '',
  '| contender | wall µs/request | node µs/request | redis µs/request | script µs/call |',
  '|---|---:|---:|---:|---:|',
  ...names.map((name) => {
    const row = rows.get(name);
    return `| ${name} | ${cell(row.wall)} | ${cell(row.node)} | ${cell(row.redis)} | ${cell(row.script)} |`;
  }),
  '',
];
const text = lines.join('\n');
writeFileSync(new URL('./last-serial.md', import.meta.url), text);
console.log(`\n${text}`);
