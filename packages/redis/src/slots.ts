import calculateSlot from 'cluster-key-slot';
import type { RedisClientAdapter } from './clients';

/**
 * Groups layer indices by the Cluster hash slot of their key, in first-seen order. One script call
 * per group can never raise CROSSSLOT.
 */
export function groupBySlot(keys: readonly string[]): number[][] {
  const groups = new Map<number, number[]>();
  keys.forEach((key, index) => {
    const slot = calculateSlot(key);
    const group = groups.get(slot);
    if (group === undefined) groups.set(slot, [index]);
    else group.push(index);
  });
  return [...groups.values()];
}

/**
 * The master currently serving `key`, as the Cluster client's slot table says ('unassigned' while
 * the table has no owner for the slot, or the adapter cannot tell).
 */
export function masterOf(client: RedisClientAdapter, key: string): string {
  return client.masterOf?.(calculateSlot(key)) ?? 'unassigned';
}
