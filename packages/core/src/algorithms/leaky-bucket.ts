import { integerOption, oneOfOption, rejectUnknownKeys, requireObject } from '../base/validate';
import { bucketAlgorithm, checkBucketSize, divideRate } from './draining-bucket';
import { perSecondRate } from './token-bucket';
import { divideReserve, reserveOption, withReserve } from './reserve';
import { remembered } from './memo';
import type { BucketState } from './draining-bucket';
import type { Algorithm } from './types';

export interface LeakyBucketOptions {
  /** Requests the bucket holds (policing) or queues (shaping). */
  capacity: number;
  /** Requests leaking out per second; may be fractional (up to 6 decimals). */
  leakRate: number;
  /** `'policing'` (default) rejects what would overflow; `'shaping'` admits with a `delay`. */
  mode?: 'policing' | 'shaping';
  /** Requests kept for critical ones: a fraction below 1 or a count. Default 0. */
  reserve?: number;
}

const MODES = ['policing', 'shaping'] as const;

/**
 * A bucket that leaks `leakRate` requests per second and holds `capacity`. In `'policing'` mode a
 * request that would overflow is denied. In `'shaping'` mode the same requests are admitted, each
 * with a `delay`: the ms until the requests ahead of it have leaked out, so the caller can smooth
 * its output to `leakRate`.
 *
 * @example leakyBucket({ capacity: 10, leakRate: 2, mode: 'shaping' })
 */
export function leakyBucket(options: LeakyBucketOptions): Algorithm<BucketState> {
  return remembered('leakyBucket', options, () => buildLeakyBucket(options));
}

function buildLeakyBucket(options: LeakyBucketOptions): Algorithm<BucketState> {
  const raw = requireObject('leakyBucket', options);
  rejectUnknownKeys('leakyBucket', raw, ['capacity', 'leakRate', 'mode', 'reserve']);
  const capacity = integerOption('leakyBucket.capacity', raw.capacity, 1);
  const reserve = reserveOption('leakyBucket.reserve', raw.reserve, capacity);
  const { rate, unitsPerCost, drainPerMs } = perSecondRate('leakyBucket.leakRate', raw.leakRate);
  const mode = raw.mode === undefined ? 'policing' : oneOfOption('leakyBucket.mode', raw.mode, MODES);
  const model = { capacity: capacity * unitsPerCost, unitsPerCost, drainPerMs };
  checkBucketSize('leakyBucket', model, `capacity ${capacity} with leakRate ${rate}`);
  return bucketAlgorithm({
    kind: 'leakyBucket',
    model,
    limit: capacity,
    reserve,
    options: withReserve({ capacity, leakRate: rate, mode }, reserve),
    shaping: mode === 'shaping',
    extra: [mode === 'shaping' ? 1 : 0],
    divide: (parts) => {
      const share = Math.max(1, Math.floor(capacity / parts));
      const divided = { capacity: share, leakRate: divideRate(rate, parts), mode };
      return leakyBucket({ ...divided, reserve: divideReserve(reserve, parts, share) });
    },
  });
}
