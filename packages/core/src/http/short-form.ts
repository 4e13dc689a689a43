import { InvalidOptionTypeError } from '../base/errors';
import { windowOption } from '../base/duration';
import { slidingWindow } from '../algorithms/sliding-window';
import { byIp } from '../keys/by-ip';
import { integerOption } from '../base/validate';
import type { LimitRule } from '../limiter/types';

/** `{ limit, window }` as one layer named `ip`, keyed byIp(), limited by a sliding window. */
export function shortFormRule(where: string, limit: unknown, window: unknown): LimitRule {
  if (limit === undefined || window === undefined) {
    throw new InvalidOptionTypeError(`${where}: the short form needs both limit and window`);
  }
  const algorithm = slidingWindow({
    limit: integerOption(`${where}.limit`, limit, 1),
    window: windowOption(`${where}.window`, window),
  });
  return { name: 'ip', key: byIp(), algorithm };
}
