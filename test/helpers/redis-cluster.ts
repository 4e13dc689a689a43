import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type NodeLine, parseClusterNodes, parseInfo, topologyOf } from './redis-cluster-info.ts';
import { ClusterProcess, until } from './redis-cluster-node.ts';
import { clusterPorts } from './redis-cluster-ports.ts';

/** One redis-server of a test cluster. `role` and `masterId` are as of the last refresh. */
export interface ClusterNode {
  readonly host: string;
  readonly port: number;
  /** The node's cluster id (40 hex characters). */
  readonly id: string;
  readonly role: 'master' | 'replica';
  /** Id of the master this node replicates; undefined for a master. */
  readonly masterId: string | undefined;
  /** Pid of the running process; undefined while killed. */
  readonly pid: number | undefined;
}

type State = 'ok' | 'fail';

/**
 * A private Redis Cluster of 3 masters + 3 replicas on free loopback ports, started and stopped by
 * the test (one per test file: beforeAll/afterAll). Roles are re-read by start(), failover(),
 * waitForState() and refresh().
 */
export class RedisCluster {
  readonly nodes: readonly ClusterNode[];
  /** `[{ host, port }]` for `new Cluster(startupNodes, options)`. */
  readonly startupNodes: { host: string; port: number }[];
  readonly #processes: ClusterProcess[];

  constructor(
    ports: readonly number[],
    readonly dir: string,
    readonly timeoutMs: number,
  ) {
    this.#processes = ports.map((port) => new ClusterProcess(port, join(dir, String(port))));
    this.nodes = this.#processes;
    this.startupNodes = this.#processes.map(({ host, port }) => ({ host, port }));
  }

  /** Running nodes that were masters at the last refresh (a killed node is in neither list). */
  masters(): ClusterNode[] {
    return this.#processes.filter((node) => node.role === 'master' && node.pid !== undefined);
  }

  /** Running nodes that were replicas at the last refresh. */
  replicas(): ClusterNode[] {
    return this.#processes.filter((node) => node.role === 'replica' && node.pid !== undefined);
  }

  /** The master that serves a key or slot, as the cluster reports it (CLUSTER KEYSLOT and NODES). */
  async masterOf(keyOrSlot: string | number): Promise<ClusterNode> {
    const first = this.#firstRunning();
    const slot =
      typeof keyOrSlot === 'number' ? keyOrSlot : Number(await first.command(['CLUSTER', 'KEYSLOT', keyOrSlot]));
    const owner = (await this.#view(first)).find((line) => line.role === 'master' && line.owns(slot));
    if (owner === undefined) throw new Error(`no master serves slot ${slot}`);
    return this.#process(owner);
  }

  replicaOf(master: ClusterNode): ClusterNode {
    const replica = this.#processes.find((node) => node.masterId === master.id);
    if (replica === undefined) throw new Error(`master ${master.port} has no replica`);
    return replica;
  }

  /** Runs one command on one node over a private admin connection. */
  command(node: ClusterNode, ...args: (string | number)[]): Promise<unknown> {
    return this.#process(node).command(args);
  }

  /** SIGKILL and wait for the process to exit (its data is gone; nodes.conf is kept). */
  kill(node: ClusterNode): Promise<void> {
    return this.#process(node).kill();
  }

  /** Starts a killed node again; it rejoins under the same id. Wait for the state you expect next. */
  async start(node: ClusterNode): Promise<void> {
    const target = this.#process(node);
    if (target.pid === undefined) await target.launch();
  }

  /** CLUSTER FAILOVER on a replica; resolves once it reports itself master and the cluster is ok again. */
  async failover(replica: ClusterNode): Promise<void> {
    const node = this.#process(replica);
    await node.command(['CLUSTER', 'FAILOVER']);
    const isMaster = async () => (await this.#info(node, 'INFO', 'replication')).role === 'master';
    await until(() => isMaster().catch(() => false), this.timeoutMs, `node ${node.port} reports itself master`);
    await this.waitForState('ok');
  }

  /**
   * Resolves once every running node reports `cluster_state:<state>`. For ok, also: every running
   * node sees the same topology, flags no running node as failing and has every slot on a running
   * master, and every running replica is in sync.
   */
  async waitForState(state: State, timeoutMs = this.timeoutMs): Promise<void> {
    const settled = () => this.#settled(state).catch(() => false);
    await until(settled, timeoutMs, `cluster_state:${state} on every running node`);
    await this.refresh();
  }

  /** Re-reads every node's id, role and master from CLUSTER NODES. */
  async refresh(): Promise<void> {
    for (const line of await this.#view(this.#firstRunning())) {
      const node = this.#processes.find((candidate) => candidate.port === line.port);
      if (node === undefined) continue;
      node.id = line.id;
      node.role = line.role;
      node.masterId = line.masterId;
    }
  }

  /** Kills every process and removes the directory. */
  async stop(): Promise<void> {
    await Promise.all(this.#processes.map((node) => node.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Launches the processes, joins them with redis-cli --cluster create, waits for ok. */
  async create(): Promise<void> {
    await Promise.all(this.#processes.map((node) => node.launch()));
    const addresses = this.#processes.map((node) => `${node.host}:${node.port}`);
    const args = ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'];
    await promisify(execFile)('redis-cli', args, { timeout: this.timeoutMs });
    await this.waitForState('ok');
  }

  async #settled(state: State): Promise<boolean> {
    const running = this.#processes.filter((node) => node.pid !== undefined);
    const runningPorts = new Set(running.map((node) => node.port));
    const topologies = new Set<string>();
    for (const node of running) {
      const cluster = await this.#info(node, 'CLUSTER', 'INFO');
      if (cluster.cluster_state !== state) return false;
      if (state === 'fail') continue;
      if (cluster.cluster_known_nodes !== String(this.#processes.length)) return false;
      const view = await this.#view(node);
      if (view.some((line) => line.failing && runningPorts.has(line.port))) return false;
      // Right after a kill every node still says ok: wait until no slot is served by a dead node.
      if (view.some((line) => line.slots !== '' && !runningPorts.has(line.port))) return false;
      topologies.add(topologyOf(view));
      const replication = await this.#info(node, 'INFO', 'replication');
      const inSync = replication.master_link_status === 'up' && replication.master_sync_in_progress === '0';
      if (replication.role === 'slave' && !inSync) return false;
    }
    return topologies.size <= 1;
  }

  #process(node: { port: number }): ClusterProcess {
    const found = this.#processes.find((candidate) => candidate.port === node.port);
    if (found === undefined) throw new Error(`port ${node.port} is not a node of this cluster`);
    return found;
  }

  #firstRunning(): ClusterProcess {
    const node = this.#processes.find((candidate) => candidate.pid !== undefined);
    if (node === undefined) throw new Error('no cluster node is running');
    return node;
  }

  async #info(node: ClusterProcess, ...args: string[]): Promise<Record<string, string>> {
    return parseInfo(String(await node.command(args)));
  }

  async #view(node: ClusterProcess): Promise<NodeLine[]> {
    return parseClusterNodes(String(await node.command(['CLUSTER', 'NODES'])));
  }
}

/** Starts a 3 + 3 cluster; resolves once every slot is served, every node agrees and every replica is in sync. */
export async function startCluster(options: { timeoutMs?: number } = {}): Promise<RedisCluster> {
  const failures: string[] = [];
  // Setting up is not what any test checks: one more try on fresh ports when another process on
  // this machine took a port in between, or the join outlasted the timeout on a busy machine.
  for (let attempt = 1; attempt <= 2; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'floodgate-cluster-'));
    const cluster = new RedisCluster(await clusterPorts(6), dir, options.timeoutMs ?? 20_000);
    try {
      await cluster.create();
      return cluster;
    } catch (error) {
      await cluster.stop();
      failures.push(describeFailure(error));
    }
  }
  throw new Error(`could not start a test cluster:\n${failures.join('\n')}`);
}

/** The error with what redis-cli printed, which is where --cluster create explains itself. */
function describeFailure(error: unknown): string {
  const { stdout, stderr } = error as { stdout?: string; stderr?: string };
  return [String(error), stdout?.trim(), stderr?.trim()].filter(Boolean).join('\n');
}
