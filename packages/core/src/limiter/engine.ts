import { checkedClock } from '../base/clock';
import { isThenable } from '../base/thenable';
import { safeEvents } from '../resilience/events';
import { Deadlines } from '../resilience/deadline';
import { guardStore } from '../resilience/guarded-store';
import { AlgorithmChoice } from './algorithm-choice';
import { Charging } from './charging';
import { KeyControls } from './key-controls';
import { KeyResolution } from './key-resolution';
import { Leasing, unleased } from './leasing';
import { followFeed } from './live-limits';
import { Refunds } from './refunds';
import { ruleSetOf } from './rule-set';
import type { MaybePromise } from '../base/thenable';
import type { Warn } from '../base/warnings';
import type { KeyContext } from '../keys/context';
import type { SafeEvents } from '../resilience/events';
import type { ControlOperation, GuardedStore } from '../resilience/guarded-store';
import type { FailMode } from '../resilience/options';
import type { LayerCall, Store } from '../store/store';
import type { LimiterDecision, RefundTarget } from './limiter-decision';
import type { LimiterConfig } from './options';
import type { RuleCall } from './rule-call';
import type { CompiledRule } from './rules';
import type { Priority } from './types';

export type { RuleCall } from './rule-call';

/**
 * The limiter's machinery, shared by `createLimiter` and the middleware. A request goes through
 * its collaborators in turn: KeyResolution (each rule's key and, per tenant, its AlgorithmChoice),
 * Leasing (layers served from locally held units), Charging (the store call and the fold into one
 * decision); Refunds and KeyControls act on the keys afterwards. It stays synchronous as long as
 * nothing has to wait (sync key functions and a MemoryStore, or a leased layer served locally), so
 * such a decision costs no promise. Rules given as a feed are reloaded live: each reload is one
 * new RuleSet handed to KeyResolution, which every request reads once, at its start.
 */
export class LimiterEngine<Req = unknown> implements RefundTarget {
  readonly prefix: string;
  readonly store: Store;
  readonly clock: () => number;
  readonly events: SafeEvents;
  /** Where this limiter's warnings go, each code once. */
  readonly warn: Warn;
  readonly failMode: FailMode;
  readonly #keys: KeyResolution<Req>;
  /** Made when the first rule set with a leased rule arrives (at construction or on a reload). */
  #leasing: Leasing | undefined;
  readonly #guarded: GuardedStore;
  readonly #charging: Charging<Req>;
  readonly #refunds: Refunds;
  readonly #controls: KeyControls<Req>;
  readonly #stopFollowing: (() => void) | undefined;

  constructor(config: LimiterConfig<Req>) {
    const warn = config.warn;
    this.warn = warn;
    this.failMode = config.resilience.failMode;
    this.prefix = config.prefix;
    this.store = config.store;
    const clock = checkedClock(config.clock, 'createLimiter.clock', warn);
    this.clock = clock;
    const events = safeEvents(config.resilience.hooks, warn);
    this.events = events;
    const guarded = guardStore(config.store, config.resilience, events, clock);
    this.#guarded = guarded;
    const set = ruleSetOf(config.rules, config.prefix);
    // Key and algorithm functions answer within the limiter's timeout; one turn's calls share a timer.
    const deadlines = new Deadlines(config.resilience.timeout);
    const choice = new AlgorithmChoice<Req>(deadlines, warn);
    this.#keys = new KeyResolution(config.prefix, set, choice, warn, deadlines);
    this.#refunds = new Refunds(config.store, guarded, events, clock, undefined);
    this.#charging = new Charging(config.store, guarded, events, this.#refunds, undefined, set.needsRequestId);
    this.#controls = new KeyControls(this.#keys, guarded, undefined);
    if (set.hasLeases) this.#startLeasing();
    this.#stopFollowing =
      config.feed === undefined ? undefined : followFeed(config.feed, config.compile, this.#replaceRules, warn);
  }

  /** The rules requests are decided by now. */
  get rules(): readonly CompiledRule<Req>[] {
    return this.#keys.rules;
  }

  /** Leasing, for the first rule set that has a leased rule; every collaborator that touches pools gets it. */
  #startLeasing(): void {
    const guarded = this.#guarded;
    const refunds = this.#refunds;
    // A lease's store call is the lease's units as one request on the rule's key, never critical.
    const leasing = new Leasing(
      {
        take: async (call) => (await guarded.take([call]))?.[0],
        giveBack: (call, units) =>
          refunds.refundLater([{ key: call.key, algorithm: call.algorithm, cost: units }], units),
      },
      this.clock,
    );
    this.#leasing = leasing;
    refunds.leaseWith(leasing);
    this.#charging.leaseWith(leasing);
    this.#controls.leaseWith(leasing);
  }

  /**
   * A reload: requests that start from now on are decided by `rules`; unchanged rules keep their
   * keys and counts. What the new set needs (leasing, request ids) is in place before it is used.
   */
  readonly #replaceRules = (rules: readonly CompiledRule<Req>[]): void => {
    const set = ruleSetOf(rules, this.prefix);
    if (set.hasLeases && this.#leasing === undefined) this.#startLeasing();
    if (set.needsRequestId) this.#charging.giveRequestIds();
    this.#keys.use(set);
  };

  /**
   * Decides and charges one request of `cost` units. Throws InvalidCostError for a cost no layer can
   * take. `priority`, when given (a route's or a call's), stands for the limiter-wide priority function.
   */
  decide(ctx: KeyContext<Req>, cost: number, priority?: Priority): MaybePromise<LimiterDecision> {
    const calls = this.#keys.resolve(ctx, cost, priority);
    if (isThenable(calls)) return calls.then((resolved) => this.#consume(ctx, resolved, cost));
    return this.#consume(ctx, calls, cost);
  }

  /** The Decision a request of `cost` would get now; nothing is charged, and it cannot be refunded. */
  async peek(ctx: KeyContext<Req>, cost: number, priority?: Priority): Promise<LimiterDecision> {
    return this.#charging.peek(await this.#keys.resolve(ctx, cost, priority), cost);
  }

  /** The standing of `ctx`'s own layers (its client-scope rules; the status route's), charging nothing. */
  async peekOwn(ctx: KeyContext<Req>): Promise<LimiterDecision> {
    return this.#charging.peek(await this.#controls.ownCalls(ctx), 0);
  }

  /**
   * Resets, blocks or unblocks the request's own keys (its client-scope rules), or the rule named.
   * Rejects when the store cannot.
   */
  control(operation: ControlOperation, ctx: KeyContext<Req>, rule: string | undefined, duration = 0): Promise<void> {
    return this.#controls.control(operation, ctx, rule, duration);
  }

  /** The layers of `ctx` that are its client's own (the status route reports these), charging nothing. */
  ownCalls(ctx: KeyContext<Req>): Promise<RuleCall[]> {
    return this.#controls.ownCalls(ctx);
  }

  /** Stops following the limits feed, and gives every leased unit back to the store. */
  close(): Promise<void> {
    this.#stopFollowing?.();
    return this.#leasing === undefined ? Promise.resolve() : this.#leasing.close();
  }

  /** The store calls for the layers that apply to `ctx`, each checked against `cost`. */
  resolve(ctx: KeyContext<Req>, cost: number, priority?: Priority): MaybePromise<RuleCall[]> {
    return this.#keys.resolve(ctx, cost, priority);
  }

  /** Gives `cost` units back to `calls`' layers (concurrency slots are left to release()). */
  refund(calls: readonly LayerCall[], cost: number): Promise<void> {
    return this.#refunds.refund(calls, cost);
  }

  refundLater(calls: readonly LayerCall[], cost: number): Promise<void> {
    return this.#refunds.refundLater(calls, cost);
  }

  #consume(ctx: KeyContext<Req>, calls: RuleCall[], cost: number): MaybePromise<LimiterDecision> {
    const leasing = this.#leasing;
    if (leasing === undefined || !(cost > 0)) return this.#charging.consume(ctx, calls, cost, calls);
    // Leased layers are served from their pools (an empty one filled first); the rest go to the store.
    const filling = leasing.serve(calls, cost);
    if (filling === undefined) return this.#charging.consume(ctx, calls, cost, unleased(calls));
    return filling.then((answered) =>
      leasing.filled(calls, answered)
        ? this.#charging.consume(ctx, calls, cost, unleased(calls))
        : this.#charging.consumeDegraded(ctx, calls, cost),
    );
  }
}
