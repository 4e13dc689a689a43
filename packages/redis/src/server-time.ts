/**
 * The composer's reply when Redis refuses TIME inside scripts (some managed services do, and so
 * does an ACL without +time); see lua/composer.lua.
 */
export function refusedTime(error: unknown): boolean {
  return error instanceof Error && /\bFLOODGATE_NO_TIME\b/.test(error.message);
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
