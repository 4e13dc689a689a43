import { windowOption } from '../base/duration';
import { integerOption, rejectUnknownKeys, requireObject } from '../base/validate';
import { bucketAlgorithm, checkBucketSize, gcd } from './draining-bucket';
import type { Duration } from '../base/duration';
import { divideReserve, reserveOption, withReserve } from './reserve';
import { remembered } from './memo';
import type { BucketState } from './draining-bucket';
import type { Algorithm } from './types';

export interface GcraOptions {
  /** Requests per `period` in the long run. */
  rate: number;
  /** The period `rate` applies to. The emission interval is `period / rate`. */
  period: Duration;
  /** Extra requests admitted at once on top of the first: `burst + 1` in a row (0 is valid). */
  burst: number;
  /** Requests of the `burst + 1` kept for critical ones: a fraction below 1 or a count. Default 0. */
  reserve?: number;
}

/**
 * The generic cell rate algorithm with redis-cell's semantics: one request every `period / rate`,
 * and up to `burst + 1` at once. It is a draining bucket in disguise: the theoretical arrival time
 * (TAT) minus now, times `rate`, is the level; each request adds `period` units and `rate` drain per
 * ms, so the TAT is kept exactly in integers.
 *
 * @example gcra({ rate: 10, period: '1s', burst: 4 })
 */
export function gcra(options: GcraOptions): Algorithm<BucketState> {
  return remembered('gcra', options, () => buildGcra(options));
}

function buildGcra(options: GcraOptions): Algorithm<BucketState> {
  const raw = requireObject('gcra', options);
  rejectUnknownKeys('gcra', raw, ['rate', 'period', 'burst', 'reserve']);
  const rate = integerOption('gcra.rate', raw.rate, 1);
  const period = windowOption('gcra.period', raw.period);
  const burst = integerOption('gcra.burst', raw.burst, 0);
  const reserve = reserveOption('gcra.reserve', raw.reserve, burst + 1);
  const common = gcd(period, rate);
  const unitsPerCost = period / common;
  const model = { capacity: (burst + 1) * unitsPerCost, unitsPerCost, drainPerMs: rate / common };
  checkBucketSize('gcra', model, `burst ${burst} with rate ${rate} per period ${period} ms`);
  return bucketAlgorithm({
    kind: 'gcra',
    model,
    limit: burst + 1,
    reserve,
    options: withReserve({ rate, period, burst }, reserve),
    shaping: false,
    extra: [],
    // Stretching the period divides the rate exactly, with no rounding of `rate`.
    divide: (parts) => {
      const share = Math.max(1, Math.floor((burst + 1) / parts));
      return gcra({ rate, period: period * parts, burst: share - 1, reserve: divideReserve(reserve, parts, share) });
    },
  });
}
