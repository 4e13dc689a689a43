import { InvalidOptionError, show } from '../base/errors';
import { integerOption, positiveNumberOption, rejectUnknownKeys, requireObject } from '../base/validate';
import { bucketAlgorithm, checkBucketSize, divideRate, scaleRate } from './draining-bucket';
import { divideReserve, reserveOption, withReserve } from './reserve';
import { remembered } from './memo';
import type { BucketState } from './draining-bucket';
import type { Algorithm } from './types';

export interface TokenBucketOptions {
  /** Tokens the bucket holds when full: the largest burst. */
  capacity: number;
  /** Tokens added per second, continuously; may be fractional (up to 6 decimals). */
  refillRate: number;
  /** Tokens kept for critical requests: a fraction below 1 or a token count. Default 0. */
  reserve?: number;
}

/** Validates a per-second rate and turns it into the bucket engine's integer units. */
export function perSecondRate(
  name: string,
  value: unknown,
): { rate: number; unitsPerCost: number; drainPerMs: number } {
  const rate = positiveNumberOption(name, value);
  const scaled = scaleRate(rate, 1000);
  if (scaled === undefined) {
    throw new InvalidOptionError(`${name} must have at most 6 decimals, got ${show(value)}`);
  }
  return { rate, ...scaled };
}

/**
 * A bucket of `capacity` tokens refilled continuously at `refillRate` tokens per second; a request
 * of cost n takes n tokens. Allows bursts up to `capacity`, then a steady `refillRate`. State is the
 * tokens spent (an integer level in the shared draining-bucket engine) and when it was measured.
 *
 * @example tokenBucket({ capacity: 50, refillRate: 5 })
 */
export function tokenBucket(options: TokenBucketOptions): Algorithm<BucketState> {
  return remembered('tokenBucket', options, () => buildTokenBucket(options));
}

function buildTokenBucket(options: TokenBucketOptions): Algorithm<BucketState> {
  const raw = requireObject('tokenBucket', options);
  rejectUnknownKeys('tokenBucket', raw, ['capacity', 'refillRate', 'reserve']);
  const capacity = integerOption('tokenBucket.capacity', raw.capacity, 1);
  const reserve = reserveOption('tokenBucket.reserve', raw.reserve, capacity);
  const { rate, unitsPerCost, drainPerMs } = perSecondRate('tokenBucket.refillRate', raw.refillRate);
  const model = { capacity: capacity * unitsPerCost, unitsPerCost, drainPerMs };
  checkBucketSize('tokenBucket', model, `capacity ${capacity} with refillRate ${rate}`);
  return bucketAlgorithm({
    kind: 'tokenBucket',
    model,
    limit: capacity,
    reserve,
    options: withReserve({ capacity, refillRate: rate }, reserve),
    shaping: false,
    extra: [],
    divide: (parts) => {
      const share = Math.max(1, Math.floor(capacity / parts));
      return tokenBucket({
        capacity: share,
        refillRate: divideRate(rate, parts),
        reserve: divideReserve(reserve, parts, share),
      });
    },
  });
}
