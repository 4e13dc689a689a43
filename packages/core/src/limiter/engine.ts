import { checkCost, costCeiling, isWholeCost } from '../algorithms/cost';
import { algorithmProblem } from '../algorithms/shape';
import { checkedClock } from '../base/clock';
import { AlgorithmFunctionError, InvalidOptionError, show } from '../base/errors';
import { algorithmTag } from '../algorithms/algorithm-tag';
import { ipKey } from '../keys/by-ip';
import { encodeIdentity } from '../keys/identity';
import { ownedBy } from '../keys/scope';
import { LeaseBook } from './lease';
import { LimiterDecision } from './limiter-decision';
import { nextRequestId } from '../base/request-id';
import { WarningCode } from '../base/warnings';
import { safeEvents } from '../resilience/events';
import { Deadlines } from '../resilience/deadline';
import { guardStore } from '../resilience/guarded-store';
import { isThenable } from '../base/thenable';
import type { Algorithm } from '../algorithms/types';
import type { LayerResult } from './decision';
import type { KeyContext } from '../keys/context';
import type { LeaseTicket } from './lease';
import type { LimiterConfig } from './options';
import type { Priority, PriorityFunction } from './types';
import type { RefundTarget } from './limiter-decision';
import type { CompiledRule } from './rules';
import type { SafeEvents } from '../resilience/events';
import type { ControlOperation, GuardedAnswer, GuardedStore } from '../resilience/guarded-store';
import type { DecisionEvent, FailMode } from '../resilience/options';
import type { LayerCall, LayerOutcome, Penalty, Store } from '../store/store';
import type { MaybePromise } from '../base/thenable';
import type { Warn } from '../base/warnings';

/** A layer call that remembers its rule, so the answer can be named without a parallel array. */
export interface RuleCall extends LayerCall {
  readonly rule: CompiledRule;
  readonly shadow: boolean;
  readonly critical: boolean;
  readonly penalty: Penalty | undefined;
  /**
   * A shadow layer asked for more than it can ever admit: it is decided at cost 0 (nothing is
   * charged) and reported as denying, since an enforced rule would refuse such a request.
   */
  readonly overCapacity: boolean;
  /** Set when this layer's units were handed out from a lease rather than charged in the store. */
  ticket: LeaseTicket | undefined;
}

/** A key or algorithm function that threw or rejected (or, for an algorithm function, never answered). */
class Failure {
  constructor(
    readonly error: unknown,
    readonly timedOut = false,
  ) {}
}

/** What a MemoryStore offers besides the Store interface: a decision without a promise. */
interface SyncStore extends Store {
  consumeNow(calls: readonly LayerCall[], requestId: string): LayerOutcome[];
}

type Release = (leases: readonly LayerCall[], requestId: string) => Promise<void>;

/**
 * The limiter's machinery, shared by `createLimiter` and the middleware: resolve each rule's key
 * (and, per tenant, its algorithm), charge the store, fold the layers into one decision. It stays
 * synchronous as long as nothing has to wait (sync key functions and a MemoryStore, or a leased
 * layer served locally), so such a decision costs no promise.
 */
export class LimiterEngine<Req = unknown> implements RefundTarget {
  readonly prefix: string;
  readonly store: Store;
  readonly rules: readonly CompiledRule<Req>[];
  readonly clock: () => number;
  readonly events: SafeEvents;
  /** Where this limiter's warnings go, each code once. */
  readonly warn: Warn;
  readonly failMode: FailMode;
  /** Each rule's key up to the identity, for rules whose algorithm is fixed. */
  readonly #keyStarts: readonly (string | undefined)[];
  readonly #guarded: GuardedStore;
  /** Set for a local store with no resilience around it. */
  readonly #local: boolean;
  readonly #sync: SyncStore | undefined;
  readonly #needsRequestId: boolean;
  readonly #leases: LeaseBook | undefined;
  /** The limiter's `timeout`, given to each algorithm function that returns a promise. */
  readonly #algorithmDeadlines: Deadlines;

  constructor(config: LimiterConfig<Req>) {
    const warn = config.warn;
    this.warn = warn;
    this.failMode = config.resilience.failMode;
    this.prefix = config.prefix;
    this.store = config.store;
    this.rules = config.rules;
    this.clock = checkedClock(config.clock, 'createLimiter.clock', warn);
    this.events = safeEvents(config.resilience.hooks, warn);
    this.#keyStarts = config.rules.map((rule) =>
      rule.algorithm === undefined ? undefined : this.#keyStart(rule, rule.algorithm),
    );
    this.#local = config.store.local === true;
    this.#guarded = guardStore(config.store, config.resilience, this.events, this.clock);
    const sync = config.store as Partial<SyncStore>;
    this.#sync = this.#local && typeof sync.consumeNow === 'function' ? (sync as SyncStore) : undefined;
    // Sliding log entries and concurrency leases are stored under the request's id; nothing else
    // needs one (a per-request algorithm may be either).
    this.#needsRequestId = config.rules.some(
      (rule) =>
        rule.algorithm === undefined || rule.algorithm.kind === 'slidingLog' || rule.algorithm.kind === 'concurrency',
    );
    this.#algorithmDeadlines = new Deadlines(config.resilience.timeout);
    this.#leases = config.rules.some((rule) => rule.lease !== undefined)
      ? new LeaseBook({ take: this.#takeLease, giveBack: this.#giveBackLease }, this.clock)
      : undefined;
  }

  /**
   * Decides and charges one request of `cost` units. Throws InvalidCostError for a cost no layer can
   * take. `priority`, when given (a route's or a call's), stands for the limiter-wide priority function.
   */
  decide(ctx: KeyContext<Req>, cost: number, priority?: Priority): MaybePromise<LimiterDecision> {
    const calls = this.resolve(ctx, cost, priority);
    if (isThenable(calls)) return calls.then((resolved) => this.#consume(ctx, resolved, cost));
    return this.#consume(ctx, calls, cost);
  }

  /** The Decision a request of `cost` would get now; nothing is charged, and it cannot be refunded. */
  async peek(ctx: KeyContext<Req>, cost: number, priority?: Priority): Promise<LimiterDecision> {
    return this.#peekCalls(await this.resolve(ctx, cost, priority), cost);
  }

  /** The standing of `ctx`'s own layers (its client-scope rules; the status route's), charging nothing. */
  async peekOwn(ctx: KeyContext<Req>): Promise<LimiterDecision> {
    return this.#peekCalls(await this.ownCalls(ctx), 0);
  }

  async #peekCalls(calls: RuleCall[], cost: number): Promise<LimiterDecision> {
    const { outcomes, degraded } = calls.length === 0 ? NO_ANSWER : await this.#guarded.peek(calls, '');
    return new LimiterDecision(this.#results(calls, outcomes), degraded, cost, calls, undefined);
  }

  /**
   * Resets, blocks or unblocks the request's own keys (its client-scope rules), or the rule named.
   * Rejects when the store cannot.
   */
  async control(operation: ControlOperation, ctx: KeyContext<Req>, rule: string | undefined, duration = 0) {
    if (rule !== undefined && !this.rules.some((each) => each.name === rule)) {
      throw new InvalidOptionError(
        `${operation}: no rule is named ${show(rule)}; the rules are ${this.rules.map((each) => each.name).join(', ')}`,
      );
    }
    if (rule === undefined && !this.rules.some((each) => each.scope === 'client')) {
      throw new InvalidOptionError(
        `${operation}: every rule of this limiter is shared by many clients (${this.rules.map((each) => each.name).join(', ')}), so ${operation} for a request has no key of its own to act on. Name the rule to ${operation} a shared key ({ rule: '${(this.rules[0] as CompiledRule<Req>).name}' }), or give a rule whose key identifies one client scope: 'client'`,
      );
    }
    const calls = this.#selected(await this.resolve(ctx, 0), ctx, rule);
    if (calls.length === 0) return;
    this.#leases?.drop(calls.map((call) => call.key));
    await this.#guarded.control(operation, calls, duration);
  }

  /** The layers of `ctx` that are its client's own (the status route reports these), charging nothing. */
  async ownCalls(ctx: KeyContext<Req>): Promise<RuleCall[]> {
    return this.#selected(await this.resolve(ctx, 0), ctx, undefined);
  }

  /** The rule named, whatever its scope; otherwise the client-scope layers whose key is this request's own. */
  #selected(calls: RuleCall[], ctx: KeyContext<Req>, rule: string | undefined): RuleCall[] {
    if (rule !== undefined) return calls.filter((call) => call.rule.name === rule);
    return calls.filter((call) => call.rule.scope === 'client' && ownedBy(call.rule.key, ctx as KeyContext));
  }

  /** Gives every leased unit back to the store. */
  close(): Promise<void> {
    return this.#leases === undefined ? Promise.resolve() : this.#leases.close();
  }

  /** The store calls for the layers that apply to `ctx`, each checked against `cost`. */
  resolve(ctx: KeyContext<Req>, cost: number, priority?: Priority): MaybePromise<RuleCall[]> {
    const rules = this.rules;
    const values: unknown[] = new Array(rules.length);
    let algorithms: unknown[] | undefined;
    let pending = false;
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i] as CompiledRule<Req>;
      let value: unknown;
      try {
        value = rule.key(ctx);
      } catch (error) {
        value = new Failure(error);
      }
      if (isThenable(value)) {
        pending = true;
        value = Promise.resolve(value).catch(toFailure);
      }
      values[i] = value;
      // A rule that does not apply (its key said so at once) needs no algorithm.
      if (rule.algorithmOf !== undefined && value !== undefined) {
        algorithms ??= new Array(rules.length);
        let algorithm: unknown;
        try {
          algorithm = rule.algorithmOf(ctx.req);
        } catch (error) {
          algorithm = new Failure(error);
        }
        if (isThenable(algorithm)) {
          pending = true;
          // The inner promise never rejects: a rejection from the deadline is the deadline's.
          algorithm = this.#algorithmDeadlines.watch(Promise.resolve(algorithm).catch(toFailure)).catch(toTimeout);
        }
        algorithms[i] = algorithm;
      }
    }
    if (!pending) return this.#callsFor(ctx, values, algorithms, cost, priority);
    return Promise.all([Promise.all(values), algorithms && Promise.all(algorithms)]).then(([keys, chosen]) =>
      this.#callsFor(ctx, keys, chosen, cost, priority),
    );
  }

  #callsFor(
    ctx: KeyContext<Req>,
    values: readonly unknown[],
    algorithms: readonly unknown[] | undefined,
    cost: number,
    priority: Priority | undefined,
  ): RuleCall[] {
    const calls: RuleCall[] = [];
    // Most rules share the limiter's priority function: it is asked once per request.
    let askedPriority: PriorityFunction<Req> | undefined;
    let critical = false;
    // A priority given with the call stands for the limiter's function; a rule's own still decides.
    const given = priority === 'critical';
    for (let i = 0; i < values.length; i++) {
      const rule = this.rules[i] as CompiledRule<Req>;
      const identity = this.#identity(rule, ctx, values[i]);
      if (identity === undefined) continue;
      let algorithm = rule.algorithm;
      let keyStart = this.#keyStarts[i];
      if (algorithm === undefined) {
        algorithm = this.#chosenAlgorithm(rule, algorithms?.[i]);
        keyStart = this.#keyStart(rule, algorithm);
      }
      let isCritical: boolean;
      if (priority !== undefined && !rule.ownPriority) {
        isCritical = given;
      } else {
        if (rule.priority !== undefined && rule.priority !== askedPriority) {
          askedPriority = rule.priority;
          critical = this.#isCritical(rule.priority, ctx.req);
        }
        isCritical = rule.priority !== undefined && critical;
      }
      // A shadow rule is only measured: a cost it could never admit is its denial, not the request's refusal.
      const overCapacity = rule.shadow && isWholeCost(cost) && cost > costCeiling(algorithm, isCritical);
      calls.push({
        key: `${keyStart}${identity}}`,
        algorithm,
        cost: overCapacity ? 0 : checkCost(algorithm, cost, rule.name, isCritical),
        rule: rule as CompiledRule,
        shadow: rule.shadow,
        critical: isCritical,
        penalty: rule.penalty,
        overCapacity,
        ticket: undefined,
      });
    }
    return calls;
  }

  #keyStart(rule: CompiledRule<Req>, algorithm: Algorithm): string {
    return `${this.prefix}:${rule.name}:${algorithmTag(algorithm)}:{`;
  }

  /**
   * A per-request algorithm that failed is not the client's to exploit: the request is refused
   * (the gate answers 429 without Retry-After), never decided by failMode, and the failure reported
   * once per rule. What the function returns is checked as a rule's own algorithm is, and it has
   * the limiter's `timeout` to answer.
   */
  #chosenAlgorithm(rule: CompiledRule<Req>, chosen: unknown): Algorithm {
    let reason: string;
    if (chosen instanceof Failure) {
      reason = chosen.timedOut
        ? `did not settle within ${this.#algorithmDeadlines.timeoutMs} ms (the limiter's timeout)`
        : `threw ${chosen.error instanceof Error ? chosen.error.message : show(chosen.error)}`;
    } else {
      const problem = algorithmProblem(chosen);
      if (problem === undefined) return chosen as Algorithm;
      reason = `returned ${show(chosen)}, which is not an algorithm: ${problem} (expected one made by a factory such as fixedWindow({ limit, window }))`;
    }
    this.warn(
      WarningCode.algorithmFunctionFailed,
      `the algorithm function of rule "${rule.name}" ${reason}; such requests are refused`,
      rule.name,
    );
    const cause = chosen instanceof Failure && !chosen.timedOut ? chosen.error : undefined;
    throw new AlgorithmFunctionError(rule.name, reason, cause);
  }

  /** Only `'critical'` opens the reserve; a function that throws makes the request normal (reported once). */
  #isCritical(priority: PriorityFunction<Req>, req: Req): boolean {
    try {
      return priority(req) === 'critical';
    } catch (error) {
      this.warn(
        WarningCode.priorityFailed,
        `the priority function threw ${error instanceof Error ? error.message : show(error)}; such requests are normal (they cannot use the reserve)`,
      );
      return false;
    }
  }

  /**
   * What goes between the braces. A key function that fails (a malformed token it cannot decode,
   * say) is the request's doing, not the store's: its layer still counts, keyed by the client
   * address (`!` + the byIp key, a form no identity can take), and the other layers are decided as usual.
   */
  #identity(rule: CompiledRule<Req>, ctx: KeyContext<Req>, value: unknown): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value === 'string') return encodeIdentity(value);
    const reason =
      value instanceof Failure
        ? `threw ${value.error instanceof Error ? value.error.message : show(value.error)}`
        : `returned ${show(value)} (expected a string or undefined)`;
    this.warn(
      WarningCode.keyFunctionFailed,
      `the key function of rule "${rule.name}" ${reason}; such requests are counted under that rule by client address`,
      rule.name,
    );
    const ip = ctx.ip;
    return `!${typeof ip === 'string' && ip !== '' ? encodeIdentity(ipKey(ip, 56)) : 'unknown'}`;
  }

  #consume(ctx: KeyContext<Req>, calls: RuleCall[], cost: number): MaybePromise<LimiterDecision> {
    if (this.#leases !== undefined && cost > 0) return this.#consumeLeased(ctx, calls, cost, this.#leases);
    return this.#consumeInStore(ctx, calls, cost, calls);
  }

  /**
   * Charges `direct` (the calls not served by a lease) in the store, and decides over all of
   * `calls`: the leased ones already carry their outcome's pool.
   */
  #consumeInStore(
    ctx: KeyContext<Req>,
    calls: RuleCall[],
    cost: number,
    direct: RuleCall[],
  ): MaybePromise<LimiterDecision> {
    const requestId = this.#needsRequestId ? nextRequestId() : '';
    // Every layer served from a lease: nothing to ask the store.
    if (direct.length === 0 && calls.length > 0) {
      return this.#decision(ctx, calls, cost, direct, [], false, false, this.#releaseLocal, requestId);
    }
    if (this.#local) {
      const outcomes =
        this.#sync === undefined ? this.store.consume(direct, requestId) : this.#sync.consumeNow(direct, requestId);
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

  /** Serves leased layers from their pools (filling an empty one first); the rest go to the store. */
  #consumeLeased(
    ctx: KeyContext<Req>,
    calls: RuleCall[],
    cost: number,
    book: LeaseBook,
  ): MaybePromise<LimiterDecision> {
    const now = this.clock();
    let filling: Promise<boolean>[] | undefined;
    for (const call of calls) {
      const lease = call.rule.lease;
      if (lease === undefined || cost > lease.size) continue;
      if (this.#takeFromPool(book, call, now)) continue;
      if (book.refused(call.key, now)) continue;
      filling ??= [];
      filling.push(book.fill(call, lease));
    }
    if (filling === undefined) return this.#consumeInStore(ctx, calls, cost, unleased(calls));
    return Promise.all(filling).then((answered) => {
      // The store just failed to answer: decide without it rather than wait on it a second time.
      if (answered.includes(false)) return this.#consumeDegraded(ctx, calls, cost);
      const later = this.clock();
      for (const call of calls)
        if (call.rule.lease !== undefined && call.ticket === undefined) this.#takeFromPool(book, call, later);
      return this.#consumeInStore(ctx, calls, cost, unleased(calls));
    });
  }

  async #consumeDegraded(ctx: KeyContext<Req>, calls: RuleCall[], cost: number): Promise<LimiterDecision> {
    const requestId = this.#needsRequestId ? nextRequestId() : '';
    return this.#decide(ctx, calls, cost, calls, await this.#guarded.degrade(calls, requestId), requestId);
  }

  #takeFromPool(book: LeaseBook, call: RuleCall, now: number): boolean {
    const pool = book.take(call, now);
    if (pool === undefined) return false;
    call.ticket = {
      pool,
      generation: pool.generation,
      resetAt: pool.resetAt,
      level: pool.level,
      leasedAt: pool.leasedAt,
    };
    return true;
  }

  /** A lease's store call: the lease's units as one request on the rule's key, never critical. */
  readonly #takeLease = async (call: LayerCall): Promise<LayerOutcome | undefined> =>
    (await this.#guarded.take([call]))?.[0];

  readonly #giveBackLease = (call: LayerCall, units: number): Promise<void> =>
    this.refundLater([{ key: call.key, algorithm: call.algorithm, cost: units }], units);

  readonly #releaseLocal: Release = (leases, requestId) => this.store.refund(leases, requestId);

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
    const outcomes = direct === calls ? stored : this.#merge(calls, stored);
    const decision = new LimiterDecision(this.#results(calls, outcomes), degraded, cost, calls, this);
    if (unavailable) decision.unavailable = true;
    if (direct !== calls && !decision.allowed) this.#putBackLeased(calls);
    if (decision.allowed && cost > 0) {
      const leases = calls.filter((call) => call.algorithm.kind === 'concurrency');
      if (leases.length > 0) decision.release = releaseOnce(release, leases, requestId);
    }
    if (this.events.wantsDecisions) this.events.decision(new Decided(decision, ctx as KeyContext, calls));
    return decision;
  }

  /** Every call's outcome in rule order: leased layers from their pool, the others from the store's answer. */
  #merge(calls: readonly RuleCall[], stored: readonly LayerOutcome[]): LayerOutcome[] {
    const outcomes: LayerOutcome[] = new Array(calls.length);
    let next = 0;
    for (let i = 0; i < calls.length; i++) {
      const ticket = (calls[i] as RuleCall).ticket;
      outcomes[i] =
        ticket === undefined ? (stored[next++] as LayerOutcome) : (this.#leases as LeaseBook).outcomeOf(ticket.pool);
    }
    return outcomes;
  }

  /** Another layer denied: the units handed out from leases go back to their pools. */
  #putBackLeased(calls: readonly RuleCall[]): void {
    const now = this.clock();
    for (const call of calls) {
      if (call.ticket === undefined) continue;
      (this.#leases as LeaseBook).putBack(call.ticket, call.cost, now);
      call.ticket = undefined;
    }
  }

  #results(calls: readonly RuleCall[], outcomes: readonly LayerOutcome[]): LayerResult[] {
    const results: LayerResult[] = new Array(calls.length);
    for (let i = 0; i < calls.length; i++) {
      const { rule, algorithm, shadow, overCapacity } = calls[i] as RuleCall;
      const outcome = outcomes[i] as LayerOutcome;
      results[i] = {
        rule: rule.name,
        kind: algorithm.kind,
        window: algorithm.window,
        allowed: outcome.allowed && !overCapacity,
        limit: outcome.limit,
        remaining: outcome.remaining,
        resetAt: outcome.resetAt,
        // No wait would make such a cost pass.
        retryAfter: overCapacity ? 0 : outcome.retryAfter,
        delay: outcome.delay,
        shadow,
      };
    }
    return results;
  }

  /** Gives `cost` units back to `calls`' layers (concurrency slots are left to release()). */
  refund(calls: readonly LayerCall[], cost: number): Promise<void> {
    const layers: LayerCall[] = [];
    let now: number | undefined;
    for (const call of calls) {
      if (call.algorithm.kind === 'concurrency') continue;
      const ruleCall = call as Partial<RuleCall>;
      const checked = checkCost(call.algorithm, cost, ruleCall.rule?.name ?? call.key);
      if (ruleCall.ticket !== undefined) {
        now ??= this.clock();
        (this.#leases as LeaseBook).putBack(ruleCall.ticket, checked, now);
        continue;
      }
      layers.push({ ...call, cost: checked });
    }
    if (layers.length === 0) return Promise.resolve();
    return this.#local ? this.store.refund(layers, '') : this.#guarded.refund(layers);
  }

  refundLater(calls: readonly LayerCall[], cost: number): Promise<void> {
    try {
      return this.refund(calls, cost).catch((error: unknown) => this.events.storeError({ error, operation: 'refund' }));
    } catch (error) {
      this.events.storeError({ error, operation: 'refund' });
      return Promise.resolve();
    }
  }
}

/** The onDecision/onLimited event: the keys are listed only if a hook reads them. */
class Decided implements DecisionEvent {
  readonly decision: LimiterDecision;
  readonly ctx: KeyContext;
  readonly #calls: readonly LayerCall[];

  constructor(decision: LimiterDecision, ctx: KeyContext, calls: readonly LayerCall[]) {
    this.decision = decision;
    this.ctx = ctx;
    this.#calls = calls;
  }

  get keys(): string[] {
    return this.#calls.map((call) => call.key);
  }
}

/** A peek at no layer asks the store nothing. */
const NO_ANSWER: { outcomes: LayerOutcome[]; degraded: boolean } = { outcomes: [], degraded: false };

/** A key or algorithm function's rejection, kept to be reported (never thrown). */
function toFailure(error: unknown): Failure {
  return new Failure(error);
}

function toTimeout(error: unknown): Failure {
  return new Failure(error, true);
}

/** The calls the store must charge: those not served from a lease. */
function unleased(calls: RuleCall[]): RuleCall[] {
  for (const call of calls) if (call.ticket !== undefined) return calls.filter((each) => each.ticket === undefined);
  return calls;
}

function releaseOnce(release: Release, leases: readonly LayerCall[], requestId: string): () => Promise<void> {
  let released: Promise<void> | undefined;
  return () => {
    released ??= release(leases, requestId);
    return released;
  };
}
