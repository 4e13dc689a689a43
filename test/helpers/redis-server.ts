import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

/**
 * A private redis-server on a free loopback port, started and stopped by the test itself.
 * Only processes started here are ever signalled; the machine's own Redis on 6379 is never touched.
 */
export interface RedisServer {
  readonly host: string;
  readonly port: number;
  readonly url: string;
  /** Pid of the running process, undefined while stopped. */
  readonly pid: number | undefined;
  /** Sends a signal (SIGKILL to crash, SIGSTOP/SIGCONT to freeze and thaw). */
  signal(signal: NodeJS.Signals): void;
  /** SIGKILL and wait for the process to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port (after kill); state is gone (no persistence). */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface StartRedisOptions {
  /** Extra redis-server arguments, e.g. ['--maxmemory', '4mb']. */
  args?: string[];
  port?: number;
  /** TLS only (`--port 0 --tls-port`): the server's certificate, key and the CA that signed them. */
  tls?: TlsFiles;
}

/** PEM files for a TLS server (see redis-tls.ts, which makes throwaway ones). */
export interface TlsFiles {
  cert: string;
  key: string;
  ca: string;
}

export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'floodgate-redis-'));
  let child: ChildProcess | undefined;

  const tls = options.tls;
  const listen = tls
    ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', tls.cert, '--tls-key-file', tls.key]
    : ['--port', String(port)];
  const launch = async () => {
    const args = [
      ...listen,
      ...(tls ? ['--tls-ca-cert-file', tls.ca, '--tls-auth-clients', 'no', '--tls-replication', 'yes'] : []),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--enable-debug-command',
      'yes',
      '--dir',
      dir,
      '--logfile',
      join(dir, 'redis.log'),
      ...(options.args ?? []),
    ];
    const started = spawn('redis-server', args, { stdio: 'ignore' });
    running.add(started);
    started.once('exit', () => running.delete(started));
    child = started;
    await waitForPing(port, started, tls?.ca);
  };

  const server: RedisServer = {
    host: '127.0.0.1',
    port,
    url: `${tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`,
    get pid() {
      return child?.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    signal(signal) {
      if (child?.pid !== undefined && child.exitCode === null) child.kill(signal);
    },
    async kill() {
      const current = child;
      if (current === undefined || current.exitCode !== null || current.signalCode !== null) return;
      const exited = new Promise((resolve) => current.once('exit', resolve));
      current.kill('SIGCONT');
      current.kill('SIGKILL');
      await exited;
    },
    start: launch,
    async stop() {
      await server.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await launch();
  return server;
}

/** Resolves once the server answers PING; rejects if the process dies or 5 s pass. */
async function waitForPing(port: number, child: ChildProcess, tlsCa?: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server on port ${port} exited with ${child.exitCode}`);
    if (await ping(port, '127.0.0.1', tlsCa)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`redis-server on port ${port} did not answer PING within 5 s`);
}

/**
 * One PING over a raw socket (over TLS, trusting the PEM file `tlsCa`, when given): true on +PONG
 * (no client library, so nothing queues or retries).
 */
export function ping(port: number, host = '127.0.0.1', tlsCa?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tlsCa === undefined ? connect(port, host) : tlsConnect({ port, host, ca: readFileSync(tlsCa) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once(tlsCa === undefined ? 'connect' : 'secureConnect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/**
 * The server a single-node suite should use: REDIS_URL when set (an existing server the suite
 * must not stop), otherwise a private one started here. Suites must use fresh key prefixes and
 * never flush: REDIS_URL may point at a shared server.
 */
export async function redisForSuite(): Promise<{ url: string; stop(): Promise<void> }> {
  const external = process.env.REDIS_URL;
  if (external) return { url: external, stop: async () => {} };
  const server = await startRedis();
  return { url: server.url, stop: () => server.stop() };
}
