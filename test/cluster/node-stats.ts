import type { ClusterNode, RedisCluster } from '../helpers/redis-cluster.ts';
import { parseInfo } from '../helpers/redis-cluster-info.ts';

/** Every key of `node` under `prefix` (`<prefix>:*`), by SCAN: never KEYS on a shared server. */
export async function keysOn(cluster: RedisCluster, node: ClusterNode, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const reply = await cluster.command(node, 'SCAN', cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    const [next, batch] = reply as [string, string[]];
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/**
 * The key a limiter wrote for `identity` under `prefix` and `rule`, whatever its algorithm tag
 * (`prefix:rule:<tag>:{identity}`), found on the master that owns the identity's slot; undefined
 * when there is none.
 */
export async function limiterKeyOn(
  cluster: RedisCluster,
  prefix: string,
  rule: string,
  identity: string,
): Promise<{ master: ClusterNode; key: string | undefined }> {
  const master = await cluster.masterOf(`${prefix}:${rule}:{${identity}}`);
  const found = (await keysOn(cluster, master, prefix)).filter(
    (key) => key.startsWith(`${prefix}:${rule}:`) && key.endsWith(`:{${identity}}`),
  );
  if (found.length > 1) throw new Error(`more than one key for ${rule} ${identity}: ${found.join(', ')}`);
  return { master, key: found[0] };
}

/** How often `node` answered with this error prefix (`MOVED`, `ASK`, `TRYAGAIN`...) since its last CONFIG RESETSTAT. */
export async function errorCount(cluster: RedisCluster, node: ClusterNode, prefix: string): Promise<number> {
  return infoNumber(cluster, node, 'errorstats', `errorstat_${prefix}`, 'count');
}

/**
 * Calls of `command` that `node` ran since its last CONFIG RESETSTAT, named as INFO commandstats
 * names it (`evalsha`, `cluster|slots`). Calls rejected with a redirection are not counted.
 */
export async function commandCalls(cluster: RedisCluster, node: ClusterNode, command: string): Promise<number> {
  return infoNumber(cluster, node, 'commandstats', `cmdstat_${command}`, 'calls');
}

/** Script runs the node executed (EVALSHA and EVAL; redirected calls are not counted). */
export async function scriptRuns(cluster: RedisCluster, node: ClusterNode): Promise<number> {
  return (await commandCalls(cluster, node, 'evalsha')) + (await commandCalls(cluster, node, 'eval'));
}

/** The number `name` in one `name=value,...` field of an INFO section (`cmdstat_eval:calls=3,usec=9`); 0 if absent. */
async function infoNumber(cluster: RedisCluster, node: ClusterNode, section: string, field: string, name: string) {
  const value = parseInfo(String(await cluster.command(node, 'INFO', section)))[field] ?? '';
  const pair = value.split(',').find((entry) => entry.startsWith(`${name}=`));
  return Number(pair?.slice(name.length + 1) ?? 0);
}
