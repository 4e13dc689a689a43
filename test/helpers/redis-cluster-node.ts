import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { busPortsFree } from './redis-cluster-ports.ts';
import { ping } from './redis-server.ts';

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

// Quick, certain failover: 1 s node timeout, and a replica may always take over (validity factor 0).
// Diskless sync without its default 5 s wait for more replicas: a replica is in sync within ms.
const NODE_SETTINGS: Record<string, string> = {
  'cluster-enabled': 'yes',
  'cluster-config-file': 'nodes.conf',
  'cluster-node-timeout': '1000',
  'cluster-replica-validity-factor': '0',
  save: '',
  appendonly: 'no',
  'repl-diskless-sync-delay': '0',
};

/**
 * One redis-server process of a test cluster: its own directory (which keeps nodes.conf across a
 * kill, so a restarted node rejoins under the same id), its pid, and a private admin connection.
 */
export class ClusterProcess {
  readonly host = '127.0.0.1';
  id = '';
  role: 'master' | 'replica' = 'master';
  masterId: string | undefined;
  #child: ChildProcess | undefined;
  #admin: Redis | undefined;

  constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  get pid(): number | undefined {
    const child = this.#child;
    return child !== undefined && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
  }

  /** Spawns the process and resolves once it answers PING (rejects if it exits or 5 s pass). */
  async launch(): Promise<void> {
    if (!(await busPortsFree([this.port]))) throw new Error(`cluster bus port ${this.port + 10_000} is taken`);
    mkdirSync(this.dir, { recursive: true });
    const settings = Object.entries(NODE_SETTINGS).flatMap(([name, value]) => [`--${name}`, value]);
    const args = ['--port', String(this.port), '--bind', this.host, ...settings, '--dir', this.dir];
    const child = spawn('redis-server', [...args, '--logfile', join(this.dir, 'redis.log')], { stdio: 'ignore' });
    running.add(child);
    child.once('exit', () => running.delete(child));
    this.#child = child;
    await until(() => ping(this.port), 5000, `node ${this.port} answers PING`, child);
  }

  /** One command over the admin connection (opened on first use; never retried or queued). */
  async command(args: readonly (string | number)[]): Promise<unknown> {
    if (this.#admin === undefined || this.#admin.status === 'end') {
      this.#admin?.disconnect();
      this.#admin = new Redis({
        host: this.host,
        port: this.port,
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        connectTimeout: 1000,
        commandTimeout: 5000,
      });
      this.#admin.on('error', () => {});
      await this.#admin.connect();
    }
    return this.#admin.call(String(args[0]), ...args.slice(1).map(String));
  }

  /** SIGKILL, and resolves once the process has exited. */
  async kill(): Promise<void> {
    this.#admin?.disconnect();
    this.#admin = undefined;
    const child = this.#child;
    if (child === undefined || this.pid === undefined) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/** Polls `condition` every 25 ms until it holds; rejects after `timeoutMs`, or at once if `child` exits. */
export async function until(
  condition: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  child?: ChildProcess,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child !== undefined && child.exitCode !== null) throw new Error(`waiting for ${what}: process exited`);
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
