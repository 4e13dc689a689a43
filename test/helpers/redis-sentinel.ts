import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './ports.ts';
import { ping, type RedisServer, startRedis } from './redis-server.ts';

/** The name the sentinels monitor the master under. */
export const MASTER_NAME = 'floodgate';

/**
 * One master, one replica and three sentinels (`redis-server --sentinel`) on free loopback ports,
 * started and stopped by the test itself. The sentinels judge a node down after 1 s, and a failover
 * times out after 2 s (a sentinel waits twice that before it fails the same master over again).
 */
export interface RedisSentinel {
  readonly name: string;
  /** The sentinels' addresses, as clients take them. */
  readonly sentinels: { host: string; port: number }[];
  /** The data nodes, by port: the master and the replica, whichever is which now. */
  readonly nodes: Map<number, RedisServer>;
  /** The master's port, as the sentinels report it. */
  masterPort(): Promise<number>;
  /** A command on a data node, over a connection of its own. */
  command(port: number, ...args: (string | number)[]): Promise<unknown>;
  /** Resolves once the sentinels report a master other than `port`, or rejects after `ms`. */
  waitForSwitch(port: number, ms?: number): Promise<number>;
  /** Resolves with performance.now() once the node on `port` reports itself a master (polled every 10 ms). */
  waitForRole(port: number, role: 'master' | 'slave', ms?: number): Promise<number>;
  /** Starts the node on `port` again (after a kill), as a replica of the current master. */
  restartAsReplica(port: number): Promise<void>;
  /**
   * Records performance.now() of every `+switch-master` a sentinel announces from now on, until
   * `stop()`: a test can tell a second failover (sentinels judging a stalled master down) from its own.
   */
  watchSwitches(): Promise<{ readonly at: number[]; stop(): void }>;
  /**
   * Makes the running node on `port` (a master that failed over) a replica of the current master
   * now, as Sentinel itself does some 10 s later; for the next test, once a test has measured.
   */
  demote(port: number): Promise<void>;
  /**
   * Resolves once the master has a replica in sync and the sentinels see it fit to promote, as
   * SENTINEL FAILOVER needs (they refresh a replica's role every 10 s; a failover after a crash
   * refreshes it every second, so `sentinelsToo: false` waits only for the master).
   */
  waitForReplica(sentinelsToo?: boolean, ms?: number): Promise<void>;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A replica syncs at once (the default waits 5 s for more replicas before a diskless sync). */
const NODE_ARGS = ['--repl-diskless-sync-delay', '0'];

export async function startSentinel(): Promise<RedisSentinel> {
  const master = await startRedis({ args: NODE_ARGS });
  const replica = await startRedis({ args: [...NODE_ARGS, '--replicaof', '127.0.0.1', String(master.port)] });
  const nodes = new Map<number, RedisServer>([
    [master.port, master],
    [replica.port, replica],
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'floodgate-sentinel-'));
  const sentinels: { host: string; port: number }[] = [];
  for (let i = 0; i < 3; i++) sentinels.push({ host: '127.0.0.1', port: await launchSentinel(dir, i, master.port) });
  const admin = new Redis({
    port: (sentinels[0] as { port: number }).port,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
  await admin.connect();
  admin.on('error', () => {});

  const masterPort = async () => {
    const [, port] = (await admin.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)) as [string, string];
    return Number(port);
  };
  const command = async (port: number, ...args: (string | number)[]) => {
    const client = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0 });
    client.on('error', () => {});
    try {
      await client.connect();
      return await client.call(String(args[0]), ...args.slice(1));
    } finally {
      client.disconnect();
    }
  };
  const until = async (what: string, ms: number, check: () => Promise<boolean>, every = 25) => {
    const deadline = Date.now() + ms;
    while (!(await check().catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`sentinel: ${what} not seen within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, every));
    }
  };
  const sentinel: RedisSentinel = {
    name: MASTER_NAME,
    sentinels,
    nodes,
    masterPort,
    command,
    async waitForSwitch(port, ms = 15_000) {
      await until(`a master other than ${port}`, ms, async () => (await masterPort()) !== port);
      return masterPort();
    },
    async waitForRole(port, role, ms = 15_000) {
      await until(
        `role ${role} on ${port}`,
        ms,
        async () => new RegExp(`^role:${role}\\r?$`, 'm').test(String(await command(port, 'INFO', 'replication'))),
        10,
      );
      return performance.now();
    },
    async restartAsReplica(port) {
      const current = await masterPort();
      await nodes.get(port)?.stop();
      nodes.set(port, await startRedis({ port, args: [...NODE_ARGS, '--replicaof', '127.0.0.1', String(current)] }));
    },
    async watchSwitches() {
      const at: number[] = [];
      const subscriber = new Redis({ port: (sentinels[0] as { port: number }).port, lazyConnect: true });
      subscriber.on('error', () => {});
      subscriber.on('message', () => at.push(performance.now()));
      await subscriber.connect();
      await subscriber.subscribe('+switch-master');
      return { at, stop: () => subscriber.disconnect() };
    },
    async demote(port) {
      await command(port, 'REPLICAOF', '127.0.0.1', await masterPort());
    },
    async waitForReplica(sentinelsToo = true, ms = 15_000) {
      const master = await masterPort();
      await until('a replica in sync', ms, async () =>
        /^slave\d+:.*state=online/m.test(String(await command(master, 'INFO', 'replication'))),
      );
      if (!sentinelsToo) return;
      await until('a replica the sentinels could promote', ms, async () => {
        const replicas = (await admin.call('SENTINEL', 'REPLICAS', MASTER_NAME)) as string[][];
        return replicas.some((fields) => {
          const get = (name: string) => fields[fields.indexOf(name) + 1];
          return (
            get('flags') === 'slave' && get('master-link-status') === 'ok' && Number(get('master-port')) === master
          );
        });
      });
    },
    async stop() {
      admin.disconnect();
      for (const child of [...running]) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      for (const node of nodes.values()) await node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // The sentinels find each other and the replica through the master (hello messages every 2 s).
  await until('3 sentinels and 1 replica', 15_000, async () => {
    const fields = (await admin.call('SENTINEL', 'MASTER', MASTER_NAME)) as string[];
    const get = (name: string) => Number(fields[fields.indexOf(name) + 1]);
    return get('num-other-sentinels') === 2 && get('num-slaves') === 1;
  });
  return sentinel;
}

/** One sentinel process monitoring the master at `masterPort`; its port once it answers PING. */
async function launchSentinel(dir: string, index: number, masterPort: number): Promise<number> {
  const port = await freePort();
  const file = join(dir, `sentinel-${index}.conf`);
  writeFileSync(
    file,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `logfile ${join(dir, `sentinel-${index}.log`)}`,
      `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
      `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
      `sentinel failover-timeout ${MASTER_NAME} 2000`,
      `sentinel parallel-syncs ${MASTER_NAME} 1`,
      '',
    ].join('\n'),
  );
  const child = spawn('redis-server', [file, '--sentinel'], { stdio: 'ignore' });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const deadline = Date.now() + 5000;
  while (!(await ping(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`sentinel on ${port} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return port;
}
