/**
 * The composer's reply when Redis refuses TIME inside scripts (some managed services do, and so
 * does an ACL without +time); see lua/composer.lua.
 */
export function refusedTime(error: unknown): boolean {
  return error instanceof Error && /\bFLOODGATE_NO_TIME\b/.test(error.message);
}
