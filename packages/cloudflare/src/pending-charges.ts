/** How long a charge made for part of a request may still be refunded: its deadline and one more round trip. */
export const SETTLE_MS = 1000;

/**
 * Keys tracked at most. The record is advisory (it only shortens waits and holds back penalties), so
 * it is dropped when full: the object then decides exactly as MemoryStore does.
 */
const MAX_KEYS = 10_000;

export interface Pending {
  id: string;
  cost: number;
  at: number;
}

/**
 * Charges made by consumes that carry only part of a request's layers (its other layers live in
 * other objects). Such a charge is refunded if another object denies the request, a moment later.
 * Until then it may deny other requests that will pass once it is gone: those denials are given a
 * wait that ends when the charge is settled, not the full window, and no penalty, so that nobody
 * (a deny cache, a client reading Retry-After) holds off for an hour because of a charge that
 * lasted milliseconds.
 */
export class PendingCharges {
  readonly #byKey = new Map<string, Pending[]>();

  add(key: string, id: string, cost: number, now: number): void {
    if (this.#byKey.size >= MAX_KEYS) this.#byKey.clear();
    const pending = this.of(key, now);
    pending.push({ id, cost, at: now });
    this.#byKey.set(key, pending);
  }

  /** A refund came: the charge is settled. */
  settle(key: string, id: string): void {
    const pending = this.#byKey.get(key);
    if (pending === undefined) return;
    const left = pending.filter((charge) => charge.id !== id);
    if (left.length === 0) this.#byKey.delete(key);
    else this.#byKey.set(key, left);
  }

  /** The key was reset: its charges are gone with its state. */
  forget(key: string): void {
    this.#byKey.delete(key);
  }

  /** The charges on `key` that may still be refunded at `now`. */
  of(key: string, now: number): Pending[] {
    const pending = this.#byKey.get(key);
    if (pending === undefined) return [];
    const live = pending.filter((charge) => charge.at + SETTLE_MS > now);
    if (live.length === 0) this.#byKey.delete(key);
    return live;
  }
}
