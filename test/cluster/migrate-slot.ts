import type { ClusterNode, RedisCluster } from '../helpers/redis-cluster.ts';

/**
 * A live migration of one hash slot from `source` to `target`, driven one step at a time, as
 * `redis-cli --cluster reshard` does it: open (IMPORTING on the target, MIGRATING on the source),
 * MIGRATE the keys, close (SETSLOT NODE on every master, the target first).
 */
export class SlotMigration {
  constructor(
    readonly cluster: RedisCluster,
    readonly slot: number,
    readonly source: ClusterNode,
    readonly target: ClusterNode,
  ) {}

  /** From here the source answers ASK for a key it no longer holds, and the target serves ASKING clients. */
  async open(): Promise<void> {
    await this.cluster.command(this.target, 'CLUSTER', 'SETSLOT', this.slot, 'IMPORTING', this.source.id);
    await this.cluster.command(this.source, 'CLUSTER', 'SETSLOT', this.slot, 'MIGRATING', this.target.id);
  }

  /** Moves these keys (all in the slot) to the target with one MIGRATE. */
  async move(keys: readonly string[]): Promise<void> {
    const { host, port } = this.target;
    await this.cluster.command(this.source, 'MIGRATE', host, port, '', 0, 5000, 'KEYS', ...keys);
  }

  /** Moves whatever the source still holds in the slot, `batch` keys per MIGRATE; resolves to how many. */
  async moveRest(batch = 10): Promise<number> {
    let moved = 0;
    for (;;) {
      const keys = (await this.cluster.command(this.source, 'CLUSTER', 'GETKEYSINSLOT', this.slot, batch)) as string[];
      if (keys.length === 0) return moved;
      await this.move(keys);
      moved += keys.length;
    }
  }

  /** Hands the slot to the target on every master: the target first, so its epoch bump wins, then the source. */
  async close(): Promise<void> {
    const others = this.cluster
      .masters()
      .filter((node) => node.port !== this.source.port && node.port !== this.target.port);
    for (const node of [this.target, this.source, ...others]) {
      await this.cluster.command(node, 'CLUSTER', 'SETSLOT', this.slot, 'NODE', this.target.id);
    }
  }
}
