import { parseAge, parseRetryAfter } from './http-values';
import { readLegacy } from './legacy-fields';
import { readStandard } from './standard-fields';
import type { IgnoredField, RateLimitState } from './rate-limit-state';

/** Every field this package reads about rate limits, other than Retry-After. */
const RATE_LIMIT_FIELDS = [
  'ratelimit',
  'ratelimit-policy',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-rate-limit-limit',
  'x-rate-limit-remaining',
  'x-rate-limit-reset',
];

/**
 * Reads `Retry-After`, the `RateLimit`/`RateLimit-Policy` fields of IETF drafts 6 to 11 and the
 * `X-RateLimit-*` fields. The standard fields win; `X-RateLimit-*` is read only when they say
 * nothing about remaining units. Never throws: a malformed field is ignored whole, as the draft
 * requires (§7), and listed in `ignored`; so are the rate-limit fields of a response served from a
 * cache (`Age` above 0, §7.3), which may be stale. A field sent on several lines is read as one
 * (`Headers` joins them with commas, as RFC 9110 §5.3 does).
 *
 * @example
 * const { retryAfter, policies } = readRateLimit(response.headers);
 */
export function readRateLimit(headers: Headers, now: number = Date.now()): RateLimitState {
  const state: RateLimitState = { policies: [] };
  const ignored: IgnoredField[] = [];
  const malformed = (field: string) => {
    ignored.push({ field, reason: 'malformed' });
  };
  const retryAfterField = headers.get('retry-after');
  const retryAfter = parseRetryAfter(retryAfterField, now);
  if (retryAfter !== undefined) state.retryAfter = retryAfter;
  else if (retryAfterField !== null) malformed('retry-after');

  const age = parseAge(headers.get('age'));
  if (age !== undefined && age > 0) {
    for (const field of RATE_LIMIT_FIELDS) if (headers.has(field)) ignored.push({ field, reason: 'cached' });
  } else {
    const standard = readStandard(headers, malformed);
    const legacy = readLegacy(headers, now, malformed);
    const found = standard?.policies.some((policy) => policy.remaining !== undefined) ? standard : (legacy ?? standard);
    if (found !== undefined) {
      state.source = found.source;
      state.policies = found.policies;
    }
  }
  if (ignored.length > 0) state.ignored = ignored;
  return state;
}
