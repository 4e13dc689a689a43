import { StoreTimeoutError } from '../base/errors';

type Reject = (error: unknown) => void;

/**
 * Settles with `promise`, or rejects with StoreTimeoutError after `timeoutMs`, whichever comes
 * first; the one-call form of Deadlines (same rules: see there). A store that makes many calls of
 * one deadline keeps a Deadlines instead, so the calls of one turn share a timer.
 */
export function withDeadline<T>(promise: PromiseLike<T>, timeoutMs: number): Promise<T> {
  return new Deadlines(timeoutMs).watch(promise);
}

/** The calls that began in one run of the microtask queue: they share a deadline and its timer. */
interface Cohort {
  readonly rejects: (Reject | undefined)[];
  open: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Deadlines of one length for many calls. Each call settles with its promise, or rejects with
 * StoreTimeoutError once `timeoutMs` have passed; the timer is cleared once every call has settled,
 * and a rejection that comes after the deadline is swallowed (nobody is left to tell).
 *
 * The calls that begin in one run of the microtask queue share one timer: an adapter decides the
 * requests of one event-loop turn together, so their store calls begin together.
 *
 * When the timer fires, the rejection waits one more turn of the event loop: if the process was
 * stalled (GC, a busy handler), the reply may already sit in a socket buffer, and the I/O phase of
 * that turn delivers it. A stall of the app is not a failure of the store.
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
