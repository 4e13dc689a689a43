import { StoreTimeoutError } from '../errors';

/**
 * Settles with `promise`, or rejects with StoreTimeoutError after `timeoutMs`, whichever comes
 * first. The timers are always cleared, so nothing is left pending. The late promise's rejection is
 * swallowed: it has nobody left to tell.
 *
 * When the deadline fires, the rejection waits one more turn of the event loop: if the process was
 * stalled (GC, a busy handler), the reply may already sit in a socket buffer, and the I/O phase of
 * that turn delivers it. A stall of the app is not a failure of the store.
 */
export function withDeadline<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timer = setTimeout(() => reject(new StoreTimeoutError(timeoutMs)), 0);
    }, timeoutMs);
  });
  promise.catch(() => {});
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
