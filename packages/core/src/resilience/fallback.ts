import { DEFAULTS } from '../base/defaults';
import { usableLimit } from '../algorithms/reserve';
import { MemoryStore } from '../store/memory-store';
import type { Algorithm } from '../algorithms/types';
import type { LayerCall, LayerOutcome } from '../store/store';
import type { FailMode } from './options';

/** Keys the local fallback keeps at most; bounds memory however many clients an outage sees. */
export const FALLBACK_MAX_KEYS = DEFAULTS.fallbackKeys;

/** How a decision made without the store came out. */
export interface FallbackAnswer {
  outcomes: LayerOutcome[];
  /** True when `failMode: 'closed'` refused the request because the store is away. */
  unavailable: boolean;
  /** True when concurrency slots were taken in the local store (release them there). */
  leasedLocally: boolean;
}

/**
 * Decides while the shared store is out of reach. `'local'`: a bounded MemoryStore running the same
 * algorithms with each limit divided by `instances` (this instance's share of the quota). `'open'`:
 * allow, reporting the full quota as remaining. `'closed'`: deny, with the wait until the breaker
 * will next try the store (at least 1 s) as retryAfter.
 */
export class LocalFallback {
  readonly #store: MemoryStore;
  readonly #divided = new WeakMap<Algorithm, Algorithm>();

  constructor(
    private readonly failMode: FailMode,
    private readonly instances: number,
    private readonly clock: () => number,
  ) {
    this.#store = new MemoryStore({ maxKeys: FALLBACK_MAX_KEYS, clock });
  }

  /** Keys held in the local store right now. */
  get size(): number {
    return this.#store.size;
  }

  decide(calls: readonly LayerCall[], requestId: string, retryIn: number): FallbackAnswer {
    const now = this.clock();
    if (this.failMode === 'local') {
      return {
        outcomes: this.#store.consumeNow(this.#share(calls), requestId),
        unavailable: false,
        leasedLocally: true,
      };
    }
    const allowed = this.failMode === 'open';
    const retryAfter = allowed ? 0 : Math.max(1000, retryIn);
    const outcomes = calls.map((call) => {
      const limit = usableLimit(call.algorithm, call.critical);
      return {
        allowed,
        limit,
        remaining: allowed ? limit : 0,
        resetAt: now + retryAfter,
        retryAfter,
        delay: 0,
      };
    });
    return { outcomes, unavailable: !allowed, leasedLocally: false };
  }

  /** What `decide` would answer, charging nothing. */
  peek(calls: readonly LayerCall[], requestId: string, retryIn: number): LayerOutcome[] {
    if (this.failMode === 'local') return this.#store.peekNow(this.#share(calls), requestId);
    return this.decide(calls, requestId, retryIn).outcomes;
  }

  /** A reset, block or unblock, applied to the local share too: an outage must not lift a ban. */
  control(operation: 'reset' | 'block' | 'unblock', calls: readonly LayerCall[], duration: number): void {
    if (this.failMode !== 'local') return;
    const shared = this.#share(calls);
    if (operation === 'block') void this.#store.block(shared, duration);
    else void this.#store[operation](shared);
  }

  /** Gives units back (or releases leases) in the local store. */
  refund(calls: readonly LayerCall[], requestId: string): Promise<void> {
    if (this.failMode !== 'local') return Promise.resolve();
    return this.#store.refund(this.#share(calls), requestId);
  }

  /** Forgets the local state: once the store is back, it alone decides. */
  clear(): void {
    this.#store.clear();
  }

  /** The calls against each algorithm's share; a cost above the share is capped so it can pass once the share is free. */
  #share(calls: readonly LayerCall[]): LayerCall[] {
    if (this.instances === 1) return calls as LayerCall[];
    return calls.map((call) => {
      const algorithm = this.#dividedOf(call.algorithm);
      return { ...call, algorithm, cost: Math.min(call.cost, algorithm.maxCost) };
    });
  }

  #dividedOf(algorithm: Algorithm): Algorithm {
    let divided = this.#divided.get(algorithm);
    if (divided === undefined) {
      divided = algorithm.divide(this.instances);
      this.#divided.set(algorithm, divided);
    }
    return divided;
  }
}
