import { parseHttpDate, parseRfc3339, plainNumber } from './http-values';
import type { RateLimitPolicy } from './rate-limit-state';
import type { Reading, Report } from './standard-fields';

/** The two spellings found in the wild (the draft's appendix lists both). */
const PREFIXES = ['x-ratelimit-', 'x-rate-limit-'];

/** At or above this, a reset is Unix seconds, not seconds from now (1e9 s from now is 31 years). */
const EPOCH_SECONDS = 1e9;
/** At or above this, Unix milliseconds (1e12 Unix seconds is the year 33658; some servers send Date.getTime()). */
const EPOCH_MS = 1e12;

/**
 * `X-RateLimit-Limit`, `-Remaining`, `-Reset` (or `X-Rate-Limit-*`): plain numbers, not
 * Structured Fields. The reset is read as seconds from now (@fastify/rate-limit), Unix seconds
 * (GitHub, express-rate-limit, Floodgate), Unix milliseconds, an HTTP-date or an RFC 3339 date.
 */
export function readLegacy(headers: Headers, now: number, malformed: Report): Reading | undefined {
  const prefix = PREFIXES.find((p) => ['limit', 'remaining', 'reset'].some((name) => headers.has(p + name)));
  if (prefix === undefined) return undefined;
  const policy: RateLimitPolicy = { name: '', unit: 'requests' };
  const read = <T>(name: string, parse: (text: string) => T | undefined): T | undefined => {
    const text = headers.get(prefix + name);
    if (text === null) return undefined;
    const value = parse(text.trim());
    if (value === undefined) malformed(prefix + name);
    return value;
  };
  const limit = read('limit', whole);
  const remaining = read('remaining', whole);
  const reset = read('reset', (text) => resetIn(text, now));
  if (limit !== undefined) policy.limit = limit;
  if (remaining !== undefined) policy.remaining = remaining;
  if (reset !== undefined) policy.effectiveWindow = reset;
  return Object.keys(policy).length > 2 ? { source: 'x-ratelimit', policies: [policy] } : undefined;
}

function whole(text: string): number | undefined {
  const value = plainNumber(text);
  return value !== undefined && Number.isInteger(value) ? value : undefined;
}

/** Milliseconds from `now` until the reset; 0 for an instant already past. */
function resetIn(text: string, now: number): number | undefined {
  const value = plainNumber(text);
  if (value === undefined) {
    const date = parseHttpDate(text, now) ?? parseRfc3339(text);
    return date === undefined ? undefined : Math.max(0, date - now);
  }
  if (value >= EPOCH_MS) return Math.max(0, value - now);
  if (value >= EPOCH_SECONDS) return Math.max(0, value * 1000 - now);
  return value * 1000;
}
