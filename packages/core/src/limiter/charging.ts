import { nextRequestId } from '../base/request-id';
import { isThenable } from '../base/thenable';
import { Decided, layerResults, releaseOnce } from './fold';
import { LimiterDecision } from './limiter-decision';
import type { MaybePromise } from '../base/thenable';
import type { KeyContext } from '../keys/context';
import type { SafeEvents } from '../resilience/events';
import type { GuardedAnswer, GuardedStore } from '../resilience/guarded-store';
import type { Release } from './fold';
import type { Leasing } from './leasing';
import type { RefundTarget } from './limiter-decision';
import type { RuleCall } from './rule-call';
import type { LayerCall, LayerOutcome, Store } from '../store/store';

/** What a MemoryStore offers besides the Store interface: a decision without a promise. */
interface SyncStore extends Store {
  consumeNow(calls: readonly LayerCall[], requestId: string): LayerOutcome[];
}

/** A peek at no layer asks the store nothing. */
const NO_ANSWER: { outcomes: LayerOutcome[]; degraded: boolean } = { outcomes: [], degraded: false };

/**
 * Charges a request's calls in the store (directly for a local store, through the resilience guard
 * otherwise) and folds the outcomes into one LimiterDecision. A MemoryStore with no guard answers
 * without a promise, so such a decision costs none.
 */
export class Charging<Req> {
  readonly #store: Store;
  readonly #guarded: GuardedStore;
  readonly #events: SafeEvents;
  readonly #refunds: RefundTarget;
  #leasing: Leasing | undefined;
  /** Set for a local store with no resilience around it. */
  readonly #local: boolean;
  readonly #sync: SyncStore | undefined;
  /** Once any rule set needed request ids, requests keep getting them (one decided by an older set may). */
  #needsRequestId: boolean;

  constructor(
    store: Store,
    guarded: GuardedStore,
    events: SafeEvents,
    refunds: RefundTarget,
    leasing: Leasing | undefined,
    needsRequestId: boolean,
  ) {
    this.#store = store;
    this.#guarded = guarded;
    this.#events = events;
    this.#refunds = refunds;
    this.#leasing = leasing;
    this.#local = store.local === true;
    const sync = store as Partial<SyncStore>;
    this.#sync = this.#local && typeof sync.consumeNow === 'function' ? (sync as SyncStore) : undefined;
    this.#needsRequestId = needsRequestId;
  }

  /** Leases began (a reload brought the first leased rule). */
  leaseWith(leasing: Leasing): void {
    this.#leasing = leasing;
  }

  /** A reload brought a rule that stores entries under the request's id (sliding log, concurrency). */
  giveRequestIds(): void {
    this.#needsRequestId = true;
  }

  /**
   * Charges `direct` (the calls not served by a lease) in the store, and decides over all of
   * `calls`: the leased ones already carry their outcome's pool.
   */
  consume(ctx: KeyContext<Req>, calls: RuleCall[], cost: number, direct: RuleCall[]): MaybePromise<LimiterDecision> {
    const requestId = this.#needsRequestId ? nextRequestId() : '';
    // Every layer served from a lease: nothing to ask the store.
    if (direct.length === 0 && calls.length > 0) {
      return this.#decision(ctx, calls, cost, direct, [], false, false, this.#releaseLocal, requestId);
    }
    if (this.#local) {
      const outcomes =
        this.#sync === undefined ? this.#store.consume(direct, requestId) : this.#sync.consumeNow(direct, requestId);
      const release = this.#releaseLocal;
      if (isThenable(outcomes))
        return outcomes.then((resolved) =>
          this.#decision(ctx, calls, cost, direct, resolved, false, false, release, requestId),
        );
      return this.#decision(ctx, calls, cost, direct, outcomes, false, false, release, requestId);
    }
    const answer = this.#guarded.consume(direct, requestId);
    if (isThenable(answer)) return answer.then((settled) => this.#decide(ctx, calls, cost, direct, settled, requestId));
    return this.#decide(ctx, calls, cost, direct, answer, requestId);
  }

  /** Decides every call without the shared store (a lease fill just failed to get an answer). */
  async consumeDegraded(ctx: KeyContext<Req>, calls: RuleCall[], cost: number): Promise<LimiterDecision> {
    const requestId = this.#needsRequestId ? nextRequestId() : '';
    return this.#decide(ctx, calls, cost, calls, await this.#guarded.degrade(calls, requestId), requestId);
  }

  /** The decision `calls` would get now; nothing is charged, and it cannot be refunded. */
  async peek(calls: RuleCall[], cost: number): Promise<LimiterDecision> {
    const { outcomes, degraded } = calls.length === 0 ? NO_ANSWER : await this.#guarded.peek(calls, '');
    return new LimiterDecision(layerResults(calls, outcomes), degraded, cost, calls, undefined);
  }

  #decide(
    ctx: KeyContext<Req>,
    calls: RuleCall[],
    cost: number,
    direct: RuleCall[],
    answer: GuardedAnswer,
    requestId: string,
  ): LimiterDecision {
    return this.#decision(
      ctx,
      calls,
      cost,
      direct,
      answer.outcomes,
      answer.degraded,
      answer.unavailable,
      answer.release,
      requestId,
    );
  }

  readonly #releaseLocal: Release = (leases, requestId) => this.#store.refund(leases, requestId);

  #decision(
    ctx: KeyContext<Req>,
    calls: readonly RuleCall[],
    cost: number,
    direct: readonly RuleCall[],
    stored: readonly LayerOutcome[],
    degraded: boolean,
    unavailable: boolean,
    release: Release,
    requestId: string,
  ): LimiterDecision {
    const leasing = this.#leasing as Leasing;
    const outcomes = direct === calls ? stored : leasing.merge(calls, stored);
    const decision = new LimiterDecision(layerResults(calls, outcomes), degraded, cost, calls, this.#refunds);
    if (unavailable) decision.unavailable = true;
    if (direct !== calls && !decision.allowed) leasing.putBackAll(calls);
    if (decision.allowed && cost > 0) {
      const leases = calls.filter((call) => call.algorithm.kind === 'concurrency');
      if (leases.length > 0) decision.release = releaseOnce(release, leases, requestId);
    }
    if (this.#events.wantsDecisions) this.#events.decision(new Decided(decision, ctx as KeyContext, calls));
    return decision;
  }
}
