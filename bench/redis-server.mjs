// A private redis-server for the benchmark: free loopback port (never 6379), no persistence,
// stopped by its own pid at the end (and on exit, whatever happens in between).
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';

/** A loopback port the OS just handed to a listener we closed at once. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function ping(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/** `redis-server --version`, shortened to its `v=` field; undefined when redis-server is not on the PATH. */
export function redisServerVersion() {
  try {
    const line = execFileSync('redis-server', ['--version'], { encoding: 'utf8' }).trim();
    return / v=(\S+)/.exec(line)?.[1] ?? line;
  } catch {
    return undefined;
  }
}

/** Starts redis-server and resolves once it answers PING; `stop()` kills that pid only. */
export async function startRedisServer() {
  let port = await freePort();
  while (port === 6379) port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'floodgate-bench-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  args.push('--dir', dir, '--logfile', join(dir, 'redis.log'));
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const exited = new Promise((resolve) => {
    child.once('exit', resolve);
    child.once('error', resolve);
  });
  const killOnExit = () => child.kill('SIGKILL');
  // A signal ends node without its 'exit' event: stop the server and exit as the signal would have.
  const killOnSignal = (signal) => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    process.exit(128 + constants.signals[signal]);
  };
  process.once('exit', killOnExit);
  process.once('SIGINT', killOnSignal);
  process.once('SIGTERM', killOnSignal);
  const stop = async () => {
    process.off('exit', killOnExit);
    process.off('SIGINT', killOnSignal);
    process.off('SIGTERM', killOnSignal);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 5000;
  while (!(await ping(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server on port ${port} did not start (exit code ${child.exitCode})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { port, pid: child.pid, stop };
}
