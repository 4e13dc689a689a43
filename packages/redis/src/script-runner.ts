import { FUNCTION_NAME, LIBRARY_SOURCE, SCRIPT_SHA1, SCRIPT_SOURCE } from './generated/lua';
import type { RedisClientAdapter } from './clients';

/** Runs the composer over `keys` (all on one Cluster slot) with `args`; returns Redis' raw reply. */
export interface ScriptRunner {
  run(keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
}

/**
 * EVALSHA first; EVAL only when Redis says NOSCRIPT (restart, failover, SCRIPT FLUSH, eviction from
 * the script cache), which also caches the script again. No other error is retried: a retry after
 * a timeout or a lost reply could charge the same request twice. The adapter tells NOSCRIPT apart
 * from other errors, since each client words it its own way.
 */
export function evalRunner(client: RedisClientAdapter): ScriptRunner {
  return {
    async run(keys, args) {
      try {
        return await client.evalsha(SCRIPT_SHA1, keys, args);
      } catch (error) {
        if (!client.isNoScript(error)) throw error;
        return client.eval(SCRIPT_SOURCE, keys, args);
      }
    },
  };
}

/**
 * FCALL of a Redis Functions library, loaded with FUNCTION LOAD REPLACE before the first call (on
 * every master of a Cluster: the adapter's functionLoad) and loaded again when FCALL says the
 * function is missing (a restart without persistence, FUNCTION FLUSH). Libraries are named after
 * the script's SHA-1, so two versions of Floodgate sharing a Redis never replace each other's code.
 */
export function functionRunner(client: RedisClientAdapter): ScriptRunner {
  let loading: Promise<void> | undefined;
  const load = () => {
    loading ??= client.functionLoad(LIBRARY_SOURCE).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  const fcall = (keys: readonly string[], args: readonly (string | number)[]) =>
    client.fcall(FUNCTION_NAME, keys, args);

  return {
    async run(keys, args) {
      await load();
      try {
        return await fcall(keys, args);
      } catch (error) {
        if (!client.isFunctionMissing(error)) throw error;
        loading = undefined;
        await load();
        return fcall(keys, args);
      }
    },
  };
}
