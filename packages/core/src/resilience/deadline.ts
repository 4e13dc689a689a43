import { StoreTimeoutError } from '../errors';

/**
 * Settles with `promise`, or rejects with StoreTimeoutError after `timeoutMs`, whichever comes
 * first. The timer is always cleared, so nothing is left pending. The late promise's rejection is
 * swallowed: it has nobody left to tell.
 */
export function withDeadline<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(timeoutMs)), timeoutMs);
  });
  promise.catch(() => {});
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
