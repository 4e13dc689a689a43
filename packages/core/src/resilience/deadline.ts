import { StoreTimeoutError } from '../errors';

type Reject = (error: unknown) => void;

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

/** The calls that began in one run of the microtask queue: they share a deadline and its timer. */
interface Cohort {
  readonly rejects: (Reject | undefined)[];
  open: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * withDeadline for many calls of one length, at a fraction of its cost: an adapter decides the
 * requests of one event-loop turn together, so their store calls begin together, and they share one
 * timer instead of a timer, a race and three promises each. Same rules otherwise: the rejection
 * waits one more turn after the timer fires, the timer is cleared once every call of the cohort has
 * settled, and a late rejection is swallowed.
 */
export class Deadlines {
  #joining: Cohort | undefined;
  readonly #close = (): void => {
    this.#joining = undefined;
  };

  constructor(readonly timeoutMs: number) {}

  watch<T>(promise: PromiseLike<T>): Promise<T> {
    let cohort = this.#joining;
    if (cohort === undefined) {
      cohort = { rejects: [], open: 0, timer: undefined };
      cohort.timer = setTimeout(expireNextTurn, this.timeoutMs, cohort, this.timeoutMs);
      this.#joining = cohort;
      queueMicrotask(this.#close);
    }
    const joined = cohort;
    const index = joined.rejects.length;
    joined.open++;
    return new Promise<T>((resolve, reject) => {
      joined.rejects.push(reject);
      promise.then(
        (value) => {
          if (leave(joined, index)) resolve(value);
        },
        (error: unknown) => {
          if (leave(joined, index)) reject(error);
        },
      );
    });
  }
}

/** False when the call had already expired. */
function leave(cohort: Cohort, index: number): boolean {
  if (cohort.rejects[index] === undefined) return false;
  cohort.rejects[index] = undefined;
  if (--cohort.open === 0) clearTimeout(cohort.timer);
  return true;
}

function expireNextTurn(cohort: Cohort, timeoutMs: number): void {
  cohort.timer = setTimeout(expire, 0, cohort, timeoutMs);
}

function expire(cohort: Cohort, timeoutMs: number): void {
  const { rejects } = cohort;
  for (let i = 0; i < rejects.length; i++) {
    const reject = rejects[i];
    if (reject === undefined) continue;
    rejects[i] = undefined;
    reject(new StoreTimeoutError(timeoutMs));
  }
  cohort.open = 0;
}
