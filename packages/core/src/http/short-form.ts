import { InvalidOptionTypeError } from '../errors';
import { slidingWindow } from '../algorithms/sliding-window';
import { byIp } from '../keys/by-ip';
import type { Duration } from '../duration';
import type { LimitRule } from '../limiter';

/** `{ limit, window }` as one layer named `ip`, keyed byIp(), limited by a sliding window. */
export function shortFormRule(where: string, limit: unknown, window: unknown): LimitRule {
  if (limit === undefined || window === undefined) {
    throw new InvalidOptionTypeError(`${where}: the short form needs both limit and window`);
  }
  const algorithm = slidingWindow({ limit: limit as number, window: window as Duration });
  return { name: 'ip', key: byIp(), algorithm };
}
