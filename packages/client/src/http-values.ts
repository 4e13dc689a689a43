/**
 * The rate-limit values that are not Structured Fields: `Retry-After` and `Age` (RFC 9110, 9111)
 * and the numbers and dates of the `X-RateLimit-*` fields.
 */

const PLAIN_NUMBER = /^\d+(?:\.\d+)?$/;

/** A non-negative number written plainly: digits and an optional decimal part; no sign, exponent or unit. */
export function plainNumber(field: string | null): number | undefined {
  const text = field?.trim();
  if (text === undefined || !PLAIN_NUMBER.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * RFC 9111 §1.2.2: a delta-seconds too large to represent counts as 2^31 seconds (68 years), so a
 * server asking for "never" is told apart from one sending garbage.
 */
const DELTA_SECONDS_CAP = 2 ** 31;

/** A delay in seconds (a decimal such as `1.5` is accepted too), capped at 2^31. */
export function deltaSeconds(field: string | null): number | undefined {
  const text = field?.trim();
  if (text === undefined || !PLAIN_NUMBER.test(text)) return undefined;
  return Math.min(Number(text), DELTA_SECONDS_CAP);
}

/**
 * `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, as milliseconds from `now`; a
 * decimal such as `1.5` is accepted too. Undefined when absent or unreadable; 0 for a date already past.
 *
 * @example parseRetryAfter('120', Date.now()) // 120000
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const delta = deltaSeconds(value);
  if (delta !== undefined) return delta * 1000;
  const date = parseHttpDate(value.trim(), now);
  return date === undefined ? undefined : Math.max(0, date - now);
}

/**
 * `Age` in seconds (RFC 9111 §5.1): the first member when a list was sent, undefined when that is
 * not delta-seconds (a cache would ignore such an Age too).
 */
export function parseAge(value: string | null): number | undefined {
  if (value === null) return undefined;
  const first = value.split(',')[0] as string;
  return /^\s*\d+\s*$/.test(first) ? deltaSeconds(first) : undefined;
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
export function parseHttpDate(text: string, now: number): number | undefined {
  const fixdate = IMF_FIXDATE.exec(text);
  if (fixdate) return utc(Number(fixdate[3]), fixdate[2], fixdate[1], fixdate.slice(4, 7));
  const rfc850 = RFC_850.exec(text);
  if (rfc850) return utc(fullYear(Number(rfc850[3]), now), rfc850[2], rfc850[1], rfc850.slice(4, 7));
  const asctime = ASCTIME.exec(text);
  if (asctime) return utc(Number(asctime[6]), asctime[1], asctime[2], asctime.slice(3, 6));
  return undefined;
}

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 timestamp (`2026-05-01T12:00:30Z`) as epoch ms; undefined when it is not one or names no real day. */
export function parseRfc3339(text: string): number | undefined {
  const match = RFC_3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as Six;
  const real = month >= 1 && month <= 12 && new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
  if (!real || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.parse(text.toUpperCase().replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : undefined;
}

type Six = [number, number, number, number, number, number];

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
