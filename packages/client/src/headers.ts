import { parseDictionary, parseList } from './structured-fields';
import type { BareItem, Member } from './structured-fields';

/** One quota policy as a response described it. Durations are milliseconds. */
export interface RateLimitPolicy {
  /** The policy's identifier (draft-8 and later); `''` when the fields name none. */
  name: string;
  /** Units the policy allows per window (`q`, `limit`). */
  limit?: number;
  /** The policy's window (`w`). */
  window?: number;
  /** Units left (`r`, `remaining`). */
  remaining?: number;
  /** Time from the response until the quota resets (`t`, `reset`). */
  reset?: number;
}

/** Where the policies were read from. */
export type RateLimitSource = 'draft-8' | 'draft-7' | 'draft-6' | 'x-ratelimit';

/** What a response says about its rate limits. Values that cannot be read are left out. */
export interface RateLimitState {
  /** `Retry-After` as milliseconds from the response (0 for a date already past). */
  retryAfter?: number;
  /** The fields the policies came from; undefined when there were none. */
  source?: RateLimitSource;
  /** The policies, in the order the server listed them (draft-8: the one that binds first). */
  policies: RateLimitPolicy[];
}

/**
 * Reads `Retry-After`, the `RateLimit`/`RateLimit-Policy` fields of drafts 6, 7 and 8 and the
 * `X-RateLimit-*` fields. The standard fields win; `X-RateLimit-*` is read only when they say
 * nothing about remaining units. Never throws: a field that does not parse is ignored.
 *
 * @example
 * const { retryAfter, policies } = readRateLimit(response.headers);
 */
export function readRateLimit(headers: Headers, now: number = Date.now()): RateLimitState {
  const state: RateLimitState = { policies: [] };
  const retryAfter = parseRetryAfter(headers.get('retry-after'), now);
  if (retryAfter !== undefined) state.retryAfter = retryAfter;
  const standard = draft8(headers) ?? draft7(headers) ?? draft6(headers);
  const found = standard?.policies.some((policy) => policy.remaining !== undefined)
    ? standard
    : (legacy(headers, now) ?? standard);
  if (found) {
    state.source = found.source;
    state.policies = found.policies;
  }
  return state;
}

type Found = { source: RateLimitSource; policies: RateLimitPolicy[] };

/** draft-8+: `RateLimit-Policy: "day";q=1000;w=86400` and `RateLimit: "day";r=50;t=30`, one item per policy. */
function draft8(headers: Headers): Found | undefined {
  const limits = namedItems(headers.get('ratelimit-policy'));
  const states = namedItems(headers.get('ratelimit'));
  if (limits.length === 0 && states.length === 0) return undefined;
  const policies: RateLimitPolicy[] = [];
  const byName = new Map<string, RateLimitPolicy>();
  for (const [name, params] of [...states, ...limits]) {
    let policy = byName.get(name);
    if (policy === undefined) {
      policy = { name };
      byName.set(name, policy);
      policies.push(policy);
    }
    assign(policy, 'remaining', count(params.get('r')));
    assign(policy, 'reset', seconds(params.get('t')));
    assign(policy, 'limit', count(params.get('q')));
    assign(policy, 'window', seconds(params.get('w')));
  }
  return { source: 'draft-8', policies };
}

/** draft-7: `RateLimit: limit=100, remaining=50, reset=30` and `RateLimit-Policy: 100;w=60`. */
function draft7(headers: Headers): Found | undefined {
  const field = headers.get('ratelimit');
  const dictionary = field === null ? undefined : parseDictionary(field);
  if (dictionary === undefined || !['limit', 'remaining', 'reset'].some((key) => dictionary.has(key))) return undefined;
  const policy: RateLimitPolicy = { name: '' };
  assign(policy, 'limit', count(dictionary.get('limit')?.value));
  assign(policy, 'remaining', count(dictionary.get('remaining')?.value));
  assign(policy, 'reset', seconds(dictionary.get('reset')?.value));
  assign(policy, 'window', windowOf(headers.get('ratelimit-policy'), policy.limit));
  return { source: 'draft-7', policies: [policy] };
}

/** draft-6: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds) and `RateLimit-Policy: 100;w=60`. */
function draft6(headers: Headers): Found | undefined {
  const policy: RateLimitPolicy = { name: '' };
  assign(policy, 'limit', count(firstItem(headers.get('ratelimit-limit'))));
  assign(policy, 'remaining', count(firstItem(headers.get('ratelimit-remaining'))));
  assign(policy, 'reset', seconds(firstItem(headers.get('ratelimit-reset'))));
  assign(policy, 'window', windowOf(headers.get('ratelimit-policy'), policy.limit));
  return Object.keys(policy).length > 1 ? { source: 'draft-6', policies: [policy] } : undefined;
}

/** Anything at or above this is Unix seconds, not seconds from now (1e9 s from now is 31 years). */
const EPOCH_SECONDS = 1e9;

/** `X-RateLimit-Limit`, `-Remaining`, `-Reset`; the reset as Unix seconds (GitHub, Floodgate) or seconds from now. */
function legacy(headers: Headers, now: number): Found | undefined {
  const policy: RateLimitPolicy = { name: '' };
  assign(policy, 'limit', plainCount(headers.get('x-ratelimit-limit')));
  assign(policy, 'remaining', plainCount(headers.get('x-ratelimit-remaining')));
  const reset = plainNumber(headers.get('x-ratelimit-reset'));
  if (reset !== undefined) policy.reset = reset >= EPOCH_SECONDS ? Math.max(0, reset * 1000 - now) : reset * 1000;
  return Object.keys(policy).length > 1 ? { source: 'x-ratelimit', policies: [policy] } : undefined;
}

/**
 * `Retry-After` (RFC 9110): delta-seconds or an HTTP-date, as milliseconds from `now`; a decimal
 * such as `1.5` is accepted too. Undefined when absent or unreadable; 0 for a date already past.
 *
 * @example parseRetryAfter('120', Date.now()) // 120000
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  const delta = plainNumber(text);
  if (delta !== undefined) return delta * 1000;
  const date = parseHttpDate(text, now);
  return date === undefined ? undefined : Math.max(0, date - now);
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC_850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/** The three HTTP-date formats of RFC 9110 as epoch ms, read as UTC (Date.parse reads asctime as local time). */
function parseHttpDate(text: string, now: number): number | undefined {
  const fixdate = IMF_FIXDATE.exec(text);
  if (fixdate) return utc(Number(fixdate[3]), fixdate[2], fixdate[1], fixdate.slice(4, 7));
  const rfc850 = RFC_850.exec(text);
  if (rfc850) return utc(fullYear(Number(rfc850[3]), now), rfc850[2], rfc850[1], rfc850.slice(4, 7));
  const asctime = ASCTIME.exec(text);
  if (asctime) return utc(Number(asctime[6]), asctime[1], asctime[2], asctime.slice(3, 6));
  return undefined;
}

function utc(
  year: number,
  month: string | undefined,
  day: string | undefined,
  time: (string | undefined)[],
): number | undefined {
  const [hour, minute, second] = time.map(Number) as [number, number, number];
  const date = Number(day);
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const ms = Date.UTC(year, MONTHS.indexOf(month as string), date, hour, minute, second);
  // Date.UTC rolls 31 Feb over into March: a day that does not come back is not a date.
  return new Date(ms).getUTCDate() === date ? ms : undefined;
}

/** RFC 9110: a two-digit year that would be more than 50 years in the future is in the past century. */
function fullYear(yy: number, now: number): number {
  const year = 2000 + yy;
  return year > new Date(now).getUTCFullYear() + 50 ? year - 100 : year;
}

/** Draft-8 items whose value is a policy name (a String or, in draft-08 itself, a Token), with their parameters. */
function namedItems(field: string | null): [string, Map<string, BareItem>][] {
  const list = field === null ? undefined : parseList(field);
  const items: [string, Map<string, BareItem>][] = [];
  for (const member of list ?? []) {
    const value = member.value;
    if (value?.type === 'string' || value?.type === 'token') items.push([value.value, member.params]);
  }
  return items;
}

/** The first item of a List field (draft-6 allowed `RateLimit-Limit: 10, 10;w=1`). */
function firstItem(field: string | null): BareItem | undefined {
  return field === null ? undefined : parseList(field)?.[0]?.value;
}

/** The window of the draft-6/7 `RateLimit-Policy` item whose quota is `limit`, else of the first one. */
function windowOf(field: string | null, limit: number | undefined): number | undefined {
  const items = (field === null ? undefined : parseList(field))?.filter((m: Member) => m.value?.type === 'integer');
  const chosen = items?.find((m) => m.value?.value === limit) ?? items?.[0];
  return seconds(chosen?.params.get('w'));
}

/** A non-negative Integer (RFC 9651 bounds it to 15 digits). */
function count(item: BareItem | undefined): number | undefined {
  return item?.type === 'integer' && item.value >= 0 ? item.value : undefined;
}

/** A non-negative Integer of seconds, as milliseconds. */
function seconds(item: BareItem | undefined): number | undefined {
  const value = count(item);
  return value === undefined ? undefined : value * 1000;
}

const PLAIN_NUMBER = /^\d{1,15}(?:\.\d{1,6})?$/;

/** A non-negative decimal number written plainly (the X-RateLimit-* fields are not Structured Fields). */
function plainNumber(field: string | null): number | undefined {
  const text = field?.trim();
  return text !== undefined && PLAIN_NUMBER.test(text) ? Number(text) : undefined;
}

function plainCount(field: string | null): number | undefined {
  const value = plainNumber(field);
  return value !== undefined && Number.isInteger(value) ? value : undefined;
}

function assign(policy: RateLimitPolicy, key: Exclude<keyof RateLimitPolicy, 'name'>, value: number | undefined): void {
  if (value !== undefined && policy[key] === undefined) policy[key] = value;
}
