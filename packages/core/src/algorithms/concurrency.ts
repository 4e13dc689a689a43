import { windowOption } from '../base/duration';
import { integerOption, rejectUnknownKeys, requireObject } from '../base/validate';
import { remembered } from './memo';
import type { Duration } from '../base/duration';
import type { Algorithm, Outcome } from './types';

export interface ConcurrencyOptions {
  /** Requests (units of cost) in flight at once. */
  max: number;
  /** How long a slot is held if it is never released (its holder died). Default `'30s'`. */
  lease?: Duration;
}

/** One held slot: `id:i` for unit i of the request `id`, and when the slot frees itself. */
export interface Lease {
  member: string;
  expiresAt: number;
}

/** Leases in ascending order of expiry. */
export type ConcurrencyState = readonly Lease[];

function byExpiry(a: Lease, b: Lease): number {
  return a.expiresAt - b.expiresAt || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0);
}

const membersOf = (id: string, cost: number) => Array.from({ length: cost }, (_, i) => `${id}:${i}`);

/**
 * Caps the requests in flight. Each admitted request holds `cost` slots until it is released (the
 * adapters call `decision.release()` when the response ends) or until its lease expires, so a
 * crashed holder cannot keep a slot forever.
 *
 * @example concurrency({ max: 10, lease: '30s' })
 */
export function concurrency(options: ConcurrencyOptions): Algorithm<ConcurrencyState> {
  return remembered('concurrency', options, () => buildConcurrency(options));
}

function buildConcurrency(options: ConcurrencyOptions): Algorithm<ConcurrencyState> {
  const raw = requireObject('concurrency', options);
  rejectUnknownKeys('concurrency', raw, ['max', 'lease']);
  const max = integerOption('concurrency.max', raw.max, 1);
  const lease = windowOption('concurrency.lease', raw.lease === undefined ? '30s' : raw.lease);
  const active = (state: ConcurrencyState | undefined, now: number) =>
    state === undefined ? [] : state.filter((held) => held.expiresAt > now);

  return {
    kind: 'concurrency',
    limit: max,
    window: lease,
    maxCost: max,
    reserve: 0,
    params: [max, lease],
    options: { max, lease },
    decide(state, now, cost, id): Outcome<ConcurrencyState> {
      const held = active(state, now);
      const allowed = held.length + cost <= max;
      let kept: ConcurrencyState = held;
      if (allowed && cost > 0) {
        // Re-using a request id renews its leases instead of adding more (a sorted set has no duplicates).
        const members = membersOf(id, cost);
        const added = members.map((member) => ({ member, expiresAt: now + lease }));
        kept = [...held.filter((h) => !members.includes(h.member)), ...added].sort(byExpiry);
      }
      // The (active + cost - max)-th lease to expire is the last one that has to go.
      const mustExpire = allowed ? undefined : held[held.length + cost - max - 1];
      const last = kept[kept.length - 1];
      return {
        allowed,
        state: allowed ? kept : state,
        limit: max,
        remaining: max - kept.length,
        resetAt: last === undefined ? now : last.expiresAt,
        retryAfter: mustExpire === undefined ? 0 : mustExpire.expiresAt - now,
        delay: 0,
      };
    },
    refund(state, now, cost, id) {
      if (state === undefined) return undefined;
      const released = membersOf(id, cost);
      return active(state, now).filter((held) => !released.includes(held.member));
    },
    divide(parts) {
      return concurrency({ max: Math.max(1, Math.floor(max / parts)), lease });
    },
  };
}
