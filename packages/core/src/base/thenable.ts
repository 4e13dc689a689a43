/** True for a promise or any object with a `then` method (what `await` would wait for). */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** A value that may arrive now or later: the hot path stays synchronous when nothing has to wait. */
export type MaybePromise<T> = T | Promise<T>;
