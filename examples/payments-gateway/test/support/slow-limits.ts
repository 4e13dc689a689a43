import { type Algorithm, tokenBucket, type TokenBucketOptions } from '@floodgate/fastify';
import { gatewayLimits, PROCESSOR_CEILING } from '../../src/limits.js';
import { TIERS } from '../../src/merchants.js';

/** `bucket` with its capacity and reserve, refilled at 0.001 per second. */
function slowed(bucket: Algorithm): Algorithm {
  return tokenBucket({ ...(bucket.options as unknown as TokenBucketOptions), refillRate: 0.001 });
}

/**
 * The gateway's limits with every capacity and reserve as they are, but refilled at a crawl.
 * A test on Redis cannot stop Redis' clock (it also expires the keys), and at the real rates a
 * flood that takes a second would earn hundreds of units back and hide an over-admission.
 */
export function slowLimits() {
  const tiers = Object.fromEntries(Object.entries(TIERS).map(([tier, bucket]) => [tier, slowed(bucket)]));
  return gatewayLimits({ tiers, processor: slowed(PROCESSOR_CEILING) });
}
