import { fixedWindow } from '../algorithms/fixed-window';
import { DEFAULTS } from '../base/defaults';
import { ipKey } from '../keys/by-ip';
import { encodeIdentity } from '../keys/identity';
import { MemoryStore } from '../store/memory-store';
import type { Decision } from '../limiter/decision';

const { limit, window, keys } = DEFAULTS.statusBudget;

/**
 * The status route's own limit. The route never charges the rules (asking for one's standing must
 * not use it up, and a limited client must still get an answer), so without a limit of its own each
 * call would be a store read anyone can repeat for free. Each client address (IPv6 by /56) may ask
 * `limit` times per `window` on each instance, counted in this process; a bounded LRU holds the counts.
 */
export class StatusBudget {
  readonly #store: MemoryStore;
  readonly #algorithm = fixedWindow({ limit, window });

  constructor(clock: () => number) {
    this.#store = new MemoryStore({ maxKeys: keys, clock });
  }

  /** Counts one call from the client at `ip`: undefined within the budget, else the denial to answer. */
  take(ip: string | undefined): Decision | undefined {
    const identity = typeof ip === 'string' && ip !== '' ? encodeIdentity(ipKey(ip, 56)) : 'unknown';
    const [outcome] = this.#store.consumeNow([{ key: identity, algorithm: this.#algorithm, cost: 1 }], '');
    if (outcome === undefined || outcome.allowed) return undefined;
    const { resetAt, retryAfter } = outcome;
    const layer = { rule: 'status', kind: 'fixedWindow' as const, window, limit, remaining: 0, resetAt, retryAfter };
    return {
      allowed: false,
      limit,
      remaining: 0,
      resetAt,
      retryAfter,
      delay: 0,
      rule: 'status',
      results: [{ ...layer, allowed: false, delay: 0, shadow: false }],
      degraded: false,
      shadowDenied: false,
    };
  }
}
