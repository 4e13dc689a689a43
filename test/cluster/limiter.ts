import type { LimiterOptions } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import type { RedisStoreOptions } from '@floodgate/redis';

/** A fixed clock: fixed windows never roll over while a test runs. */
export const NOW = 1_800_000_000_000;

type StrictOptions = Pick<LimiterOptions, 'store' | 'clock' | 'prefix' | 'timeout' | 'denyCache' | 'onStoreError'>;

/**
 * The limiter options the cluster suites share, to spread before their `limits`: a RedisStore on
 * `client`, the fixed clock NOW, 2 s deadlines, no deny cache (every request must reach Redis: a
 * locally cached deny would hide what the store does), and every store error kept in
 * `storeErrors` for the test to check.
 */
export function strictClusterOptions(
  client: RedisStoreOptions['client'],
  prefix: string,
): { options: StrictOptions; storeErrors: unknown[] } {
  const storeErrors: unknown[] = [];
  const options: StrictOptions = {
    store: new RedisStore({ client, clock: () => NOW, timeout: 2000 }),
    clock: () => NOW,
    prefix,
    timeout: 2000,
    denyCache: false,
    onStoreError: ({ error }) => storeErrors.push(error),
  };
  return { options, storeErrors };
}
