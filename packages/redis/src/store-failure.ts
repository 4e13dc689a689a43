import { StoreError } from '@floodgate/core';

/**
 * A failure Redis reported: the store's, never a key's (a bad value on one key is reset inside the
 * script and never reaches here; see lua/helpers.lua `wrong_type`). The limiter's failMode decides
 * the request. A command or key the ACL user may not use is one, named in the message with what to
 * grant, so that the first log line says how to fix it.
 */
export class RedisStoreError extends StoreError {
  /** What the ACL user lacks (`+hmget`, `~<key pattern>`), when Redis refused by permission. */
  readonly grant: string | undefined;

  constructor(message: string, grant: string | undefined, cause?: unknown) {
    super(message, { cause });
    this.grant = grant;
  }
}

/**
 * The StoreError for `op` that failed with Redis' `reason`; `key` is a key of the call, named when
 * Redis refused it by key pattern. The three forms of a refusal: the composer's (it names the
 * commands; see lua/permissions.lua), Redis' own NOPERM for a command (EVALSHA, FCALL, FUNCTION
 * LOAD) or for the keys of a call, and a script's refusal the composer could not name (Redis < 7).
 */
export function storeFailure(op: string, reason: string, key?: string, cause?: unknown): RedisStoreError {
  const grant = grantFor(reason, key);
  if (grant === undefined) return new RedisStoreError(`Redis ${op} failed: ${reason}`, undefined, cause);
  const said = reason.replace(/^.*?\| /, '');
  return new RedisStoreError(
    `Redis ${op} failed: the Redis user may not ${grant.what}. Grant what it lacks (ACL SETUSER <user> ` +
      `${grant.rules}; see "A least-privilege ACL user" in the @floodgate/redis README). Redis said: "${said}".`,
    grant.rules,
    cause,
  );
}

function grantFor(reason: string, key: string | undefined): { what: string; rules: string } | undefined {
  const named = /FLOODGATE_NOPERM (\S+) (.*?) \| /.exec(reason);
  if (named) {
    const commands = (named[1] as string).split(',');
    return {
      what: `run ${commands.join(', ')} on ${named[2]}`,
      rules: `${commands.map((c) => `+${c}`).join(' ')}, with a key pattern that covers the key`,
    };
  }
  const command = /NOPERM.*? to run the '([^']+)' command/.exec(reason);
  if (command) return { what: `run ${command[1]}`, rules: `+${command[1]}` };
  if (/NOPERM.*? to access one of the keys/.test(reason) || /can't access at least one of the keys/.test(reason)) {
    return { what: `use the key ${key ?? '(unknown)'}`, rules: '~<prefix>* for the store and limiter prefixes' };
  }
  if (/The user executing the script can't run/.test(reason)) {
    return { what: 'run a command the script sends', rules: 'the commands the README lists' };
  }
  return undefined;
}
