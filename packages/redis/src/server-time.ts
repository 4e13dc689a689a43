import type { CommandClient } from './options';

const PROBE = "return redis.call('TIME')";

/** An error raised inside a Lua script or function by a command the script called. */
export function isScriptError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError' && /@user_(script|function)\b/.test(error.message);
}

/**
 * Asks Redis whether a script may call TIME. Some managed services refuse it inside scripts, and
 * an ACL can too (the script then fails before it writes anything). Resolves to false only when
 * the probe script itself was refused, and to undefined when Redis could not be asked.
 */
export async function scriptsMayReadTime(client: CommandClient): Promise<boolean | undefined> {
  try {
    await client.call('EVAL', PROBE, 0);
    return true;
  } catch (error) {
    return isScriptError(error) ? false : undefined;
  }
}

let warned = false;

/** Says once per process that RedisStore now sends this process' clock. */
export function warnServerTimeRefused(): void {
  if (warned) return;
  warned = true;
  console.warn(
    "[FLOODGATE_SERVER_TIME] @floodgate/redis: this Redis does not let scripts call TIME, so RedisStore sends each app instance's own clock instead (as with clock: 'client'). Keep the instances' clocks in sync (NTP), or pass clock: 'client' to say so and skip this check.",
  );
}
