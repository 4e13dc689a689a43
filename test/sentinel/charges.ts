import type { DecisionRecord } from '../chaos/support/app.ts';
import type { RedisSentinel } from '../helpers/redis-sentinel.ts';

/**
 * Which requests the master holds a charge for, one key per request: the load gives every request
 * its own client (`<prefix><id>`) under a limit of 1, so each Redis admission writes exactly one key
 * and a key on the master names the request that made it.
 */
export interface Charges {
  /** Redis-backed admissions whose charge the master no longer holds. */
  lost: DecisionRecord[];
  /** Charges the master holds for requests that were not Redis-backed admissions (a call given up on that ran later). */
  ghost: number[];
  /** Ids of degraded decisions, to tell a ghost charge from anything else. */
  degradedIds: Set<number>;
}

export async function chargesOn(
  sentinel: RedisSentinel,
  prefix: string,
  decisions: readonly DecisionRecord[],
): Promise<Charges> {
  const master = await sentinel.masterPort();
  const keys = (await sentinel.command(master, 'KEYS', `*{${prefix}*`)) as string[];
  const pattern = new RegExp(`\\{${prefix}(\\d+)\\}`);
  const charged = new Set(keys.flatMap((key) => pattern.exec(key)?.slice(1).map(Number) ?? []));
  const admitted = decisions.filter((decision) => decision.allowed && !decision.degraded);
  const admittedIds = new Set(admitted.map((decision) => decision.id));
  return {
    lost: admitted.filter((decision) => !charged.has(decision.id)),
    ghost: [...charged].filter((id) => !admittedIds.has(id)),
    degradedIds: new Set(decisions.filter((decision) => decision.degraded).map((decision) => decision.id)),
  };
}

/** Calls of EVAL each data node has run, by port (a NOSCRIPT is answered by loading the script). */
export async function evalCalls(sentinel: RedisSentinel): Promise<Map<number, number>> {
  const calls = new Map<number, number>();
  for (const [port, node] of sentinel.nodes) {
    if (node.pid === undefined) continue; // killed
    const info = String(await sentinel.command(port, 'INFO', 'commandstats'));
    calls.set(port, Number(/^cmdstat_eval:calls=(\d+)/m.exec(info)?.[1] ?? 0));
  }
  return calls;
}
