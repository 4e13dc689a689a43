import { FUNCTION_NAME, LIBRARY_SOURCE, SCRIPT_SHA1, SCRIPT_SOURCE } from './generated/lua';
import type { CommandClient } from './options';

/** Runs the composer over `keys` (all on one Cluster slot) with `args`; returns Redis' raw reply. */
export interface ScriptRunner {
  run(keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : '';
}

/**
 * EVALSHA first; EVAL only when Redis says NOSCRIPT (restart, failover, SCRIPT FLUSH, eviction from
 * the script cache), which also caches the script again. No other error is retried: a retry after
 * a timeout or a lost reply could charge the same request twice.
 */
export function evalRunner(client: CommandClient): ScriptRunner {
  return {
    async run(keys, args) {
      try {
        return await client.call('EVALSHA', SCRIPT_SHA1, keys.length, ...keys, ...args);
      } catch (error) {
        // Anywhere in the message: ioredis' Cluster client wraps the reply as "Too many Cluster
        // redirections. Last error: ReplyError: NOSCRIPT ..." when a failover is under way.
        if (!/\bNOSCRIPT\b/.test(messageOf(error))) throw error;
        return client.call('EVAL', SCRIPT_SOURCE, keys.length, ...keys, ...args);
      }
    },
  };
}

/**
 * FCALL of a Redis Functions library, loaded with FUNCTION LOAD REPLACE before the first call (on
 * every master of a Cluster) and loaded again when FCALL says the function is missing (a restart
 * without persistence, FUNCTION FLUSH). Libraries are named after the script's SHA-1, so two
 * versions of Floodgate sharing a Redis never replace each other's code.
 */
export function functionRunner(client: CommandClient, cluster: boolean): ScriptRunner {
  let loading: Promise<void> | undefined;
  const load = () => {
    loading ??= loadLibrary(client, cluster).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  const fcall = (keys: readonly string[], args: readonly (string | number)[]) =>
    client.call('FCALL', FUNCTION_NAME, keys.length, ...keys, ...args);

  return {
    async run(keys, args) {
      await load();
      try {
        return await fcall(keys, args);
      } catch (error) {
        if (!/function not found/i.test(messageOf(error))) throw error;
        loading = undefined;
        await load();
        return fcall(keys, args);
      }
    },
  };
}

async function loadLibrary(client: CommandClient, cluster: boolean): Promise<void> {
  const targets = cluster && client.nodes ? client.nodes('master') : [client];
  await Promise.all(targets.map((node) => node.call('FUNCTION', 'LOAD', 'REPLACE', LIBRARY_SOURCE)));
}
