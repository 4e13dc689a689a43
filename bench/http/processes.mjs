// The child processes of `pnpm bench:http` (contender servers, wrk): each is killed by its own pid
// when it is done, and every one still alive when the benchmark exits, fails or is interrupted.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { createInterface } from 'node:readline';

const alive = new Set();

process.on('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    console.error(`\nbench:http: ${signal}, stopping every process it started`);
    // After the other listeners (redis-server.mjs stops its server and removes its folder, then exits).
    setImmediate(() => process.exit(128 + constants.signals[signal]));
  });
}

/** Spawns a tracked child; `exited` resolves with its exit code (or signal name) when it ends. */
export function track(command, args, options) {
  const child = spawn(command, args, options);
  alive.add(child);
  child.exited = new Promise((resolve) => {
    const done = (outcome) => {
      alive.delete(child);
      resolve(outcome);
    };
    child.once('exit', (code, signal) => done(code ?? signal));
    child.once('error', (error) => done(error));
  });
  return child;
}

/** Runs a tracked child to its end; resolves with its exit code and everything it printed (stdout and stderr). */
export async function runCollecting(command, args) {
  const child = track(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk) => {
    output += chunk;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const code = await child.exited;
  return { code, output };
}

/** Stops a tracked child: SIGTERM, then SIGKILL if it is still there after `graceMs`. */
export async function stop(child, graceMs = 2000) {
  if (!alive.has(child)) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

const SERVER = new URL('./server.mjs', import.meta.url).pathname;

/**
 * Starts `node [nodeArgs] server.mjs <name>` with `env` added and resolves once it prints
 * `listening <port>`. Its later output is passed through, prefixed with its name.
 */
export async function startServer(name, env, timeoutMs = 15_000, nodeArgs = []) {
  const child = track(process.execPath, [...nodeArgs, SERVER, name], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let port;
  const stderr = [];
  const lines = createInterface({ input: child.stdout });
  const listening = new Promise((resolve) => {
    lines.on('line', (line) => {
      const match = /^listening (\d+)$/.exec(line);
      if (port === undefined && match) {
        port = Number(match[1]);
        resolve();
      } else console.log(`  [${name}] ${line}`);
    });
  });
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderr.push(line);
    if (port !== undefined) console.error(`  [${name}] ${line}`);
  });
  let timer;
  const outcome = await Promise.race([
    listening.then(() => 'listening'),
    child.exited.then((code) => `exited (${code})`),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(`did not listen within ${timeoutMs} ms`), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (outcome !== 'listening') {
    await stop(child);
    throw new Error(`contender ${name} ${outcome}:\n${stderr.join('\n')}`);
  }
  return { name, port, pid: child.pid, child, stop: () => stop(child) };
}

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU time (user + system, all threads) a process has used so far, in µs, from /proc/<pid>/stat. */
export function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after "pid (comm) ": state is field 3, utime field 14, stime field 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
}

/** The first line a command prints for `args`, or undefined when it is not on the PATH. */
export function versionLine(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.error) return undefined;
  return `${result.stdout}${result.stderr}`.trim().split('\n')[0];
}
