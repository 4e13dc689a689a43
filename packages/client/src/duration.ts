import { InvalidOptionError, InvalidOptionTypeError, show } from './errors';

type Unit = 'ms' | 's' | 'm' | 'h';

/** Milliseconds, or a string such as `'500ms'`, `'10 s'`, `'1m'`, `'1h'` (as in @floodgate/core). */
export type Duration = number | `${number}${Unit}` | `${number} ${Unit}`;

const UNIT_MS: Record<Unit, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PATTERN = /^(\d+(?:\.\d+)?) ?(ms|s|m|h)$/;

/** setTimeout treats a delay above 2^31 - 1 ms (24.8 days) as 1 ms, so no wait may be longer. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A duration option in whole milliseconds from 0 to MAX_TIMER_MS; `name` is the option's path. */
export function durationOption(name: string, value: unknown): number {
  const expected = `milliseconds from 0 to ${MAX_TIMER_MS} or a string such as '10 s'`;
  let ms: number;
  if (typeof value === 'number') {
    ms = value;
  } else if (typeof value === 'string') {
    const match = PATTERN.exec(value.trim());
    if (!match) throw new InvalidOptionError(`${name} must be ${expected}, got ${show(value)}`);
    ms = Number(match[1]) * UNIT_MS[match[2] as Unit];
  } else {
    throw new InvalidOptionTypeError(`${name} must be ${expected}, got ${show(value)}`);
  }
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_TIMER_MS) {
    throw new InvalidOptionError(`${name} must be ${expected} (whole milliseconds), got ${show(value)}`);
  }
  return ms;
}
