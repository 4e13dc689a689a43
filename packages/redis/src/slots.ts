import calculateSlot from 'cluster-key-slot';

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
 * the table has no owner for the slot).
 */
export function masterOf(slots: readonly (readonly string[] | undefined)[] | undefined, key: string): string {
  return slots?.[calculateSlot(key)]?.[0] ?? 'unassigned';
}
