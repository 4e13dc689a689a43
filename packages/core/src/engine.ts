import { checkCost } from './algorithms/cost';
import { checkedClock } from './clock';
import { show } from './errors';
import { algorithmTag } from './keys/algorithm-tag';
import { ipKey } from './keys/by-ip';
import { encodeIdentity } from './keys/identity';
import { LimiterDecision } from './limiter-decision';
import { nextRequestId } from './request-id';
import { WarningCode } from './warnings';
import { safeEvents } from './resilience/events';
import { guardStore } from './resilience/guarded-store';
import { isThenable } from './thenable';
import type { LayerResult } from './decision';
import type { KeyContext } from './keys/context';
import type { LimiterConfig } from './limiter-options';
import type { LimitRule } from './limiter-types';
import type { RefundTarget } from './limiter-decision';
import type { SafeEvents } from './resilience/events';
import type { GuardedStore } from './resilience/guarded-store';
import type { LayerCall, LayerOutcome, Store } from './store';
import type { MaybePromise } from './thenable';
import type { Warn } from './warnings';
import type { FailMode } from './resilience/options';

/** A layer call that remembers its rule, so the answer can be named without a parallel array. */
interface RuleCall extends LayerCall {
  readonly rule: LimitRule;
}

/** A key function that threw or rejected: its layer is keyed by the client address instead. */
class KeyFailure {
  constructor(readonly error: unknown) {}
}

/** What a MemoryStore offers besides the Store interface: a decision without a promise. */
interface SyncStore extends Store {
  consumeNow(calls: readonly LayerCall[], requestId: string): LayerOutcome[];
}

/**
 * The limiter's machinery, shared by `createLimiter` and the middleware: resolve each rule's key,
 * charge the store, fold the layers into one decision. It stays synchronous as long as nothing
 * has to wait (sync key functions and a MemoryStore), so an in-memory decision costs no promise.
 */
export class LimiterEngine<Req = unknown> implements RefundTarget {
  readonly prefix: string;
  readonly store: Store;
  readonly rules: readonly LimitRule<Req>[];
  readonly clock: () => number;
  readonly events: SafeEvents;
  /** Where this limiter's warnings go, each code once. */
  readonly warn: Warn;
  readonly failMode: FailMode;
  readonly #keyStarts: readonly string[];
  readonly #guarded: GuardedStore | undefined;
  readonly #sync: SyncStore | undefined;
  readonly #needsRequestId: boolean;

  constructor(config: LimiterConfig<Req>) {
    const warn = config.warn;
    this.warn = warn;
    this.failMode = config.resilience.failMode;
    this.prefix = config.prefix;
    this.store = config.store;
    this.rules = config.rules;
    this.clock = checkedClock(config.clock, 'createLimiter.clock', warn);
    this.events = safeEvents(config.resilience.hooks, warn);
    this.#keyStarts = config.rules.map((rule) => `${config.prefix}:${rule.name}:${algorithmTag(rule.algorithm)}:{`);
    const local = config.store.local === true;
    this.#guarded = local ? undefined : guardStore(config.store, config.resilience, this.events, this.clock);
    const sync = config.store as Partial<SyncStore>;
    this.#sync = local && typeof sync.consumeNow === 'function' ? (sync as SyncStore) : undefined;
    // Sliding log entries and concurrency leases are stored under the request's id; nothing else needs one.
    this.#needsRequestId = config.rules.some(
      (rule) => rule.algorithm.kind === 'slidingLog' || rule.algorithm.kind === 'concurrency',
    );
  }

  /** Decides and charges one request of `cost` units. Throws InvalidCostError for a cost no layer can take. */
  decide(ctx: KeyContext<Req>, cost: number): MaybePromise<LimiterDecision> {
    const calls = this.resolve(ctx, cost);
    if (isThenable(calls)) return calls.then((resolved) => this.#consume(ctx, resolved, cost));
    return this.#consume(ctx, calls, cost);
  }

  /** The store calls for the layers that apply to `ctx`, each checked against `cost`. */
  resolve(ctx: KeyContext<Req>, cost: number): MaybePromise<RuleCall[]> {
    const rules = this.rules;
    const values: unknown[] = new Array(rules.length);
    let pending = false;
    for (let i = 0; i < rules.length; i++) {
      let value: unknown;
      try {
        value = (rules[i] as LimitRule<Req>).key(ctx);
      } catch (error) {
        value = new KeyFailure(error);
      }
      if (isThenable(value)) {
        pending = true;
        value = Promise.resolve(value).catch((error: unknown) => new KeyFailure(error));
      }
      values[i] = value;
    }
    if (!pending) return this.#callsFor(ctx, values, cost);
    return Promise.all(values).then((resolved) => this.#callsFor(ctx, resolved, cost));
  }

  #callsFor(ctx: KeyContext<Req>, values: readonly unknown[], cost: number): RuleCall[] {
    const calls: RuleCall[] = [];
    for (let i = 0; i < values.length; i++) {
      const rule = this.rules[i] as LimitRule;
      const identity = this.#identity(rule, ctx, values[i]);
      if (identity === undefined) continue;
      const algorithm = rule.algorithm;
      calls.push({
        key: `${this.#keyStarts[i]}${identity}}`,
        algorithm,
        cost: checkCost(algorithm, cost, rule.name),
        rule,
      });
    }
    return calls;
  }

  /**
   * What goes between the braces. A key function that fails (a malformed token it cannot decode,
   * say) is the request's doing, not the store's: its layer still counts, keyed by the client
   * address (`!` + the byIp key, a form no identity can take), and the other layers are decided as usual.
   */
  #identity(rule: LimitRule, ctx: KeyContext<Req>, value: unknown): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value === 'string') return encodeIdentity(value);
    const reason =
      value instanceof KeyFailure
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
    const requestId = this.#needsRequestId ? nextRequestId() : '';
    if (this.#guarded === undefined) {
      const outcomes =
        this.#sync === undefined ? this.store.consume(calls, requestId) : this.#sync.consumeNow(calls, requestId);
      const release = this.#releaseLocal;
      if (isThenable(outcomes))
        return outcomes.then((resolved) =>
          this.#decision(ctx, calls, cost, resolved, false, false, release, requestId),
        );
      return this.#decision(ctx, calls, cost, outcomes, false, false, release, requestId);
    }
    return this.#guarded
      .consume(calls, requestId)
      .then((answer) =>
        this.#decision(
          ctx,
          calls,
          cost,
          answer.outcomes,
          answer.degraded,
          answer.unavailable,
          answer.release,
          requestId,
        ),
      );
  }

  readonly #releaseLocal = (leases: readonly LayerCall[], requestId: string): Promise<void> =>
    this.store.refund(leases, requestId);

  #decision(
    ctx: KeyContext<Req>,
    calls: readonly RuleCall[],
    cost: number,
    outcomes: readonly LayerOutcome[],
    degraded: boolean,
    unavailable: boolean,
    release: (leases: readonly LayerCall[], requestId: string) => Promise<void>,
    requestId: string,
  ): LimiterDecision {
    const results: LayerResult[] = new Array(calls.length);
    for (let i = 0; i < calls.length; i++) {
      const { rule } = calls[i] as RuleCall;
      const outcome = outcomes[i] as LayerOutcome;
      results[i] = {
        rule: rule.name,
        kind: rule.algorithm.kind,
        window: rule.algorithm.window,
        allowed: outcome.allowed,
        limit: outcome.limit,
        remaining: outcome.remaining,
        resetAt: outcome.resetAt,
        retryAfter: outcome.retryAfter,
        delay: outcome.delay,
      };
    }
    const decision = new LimiterDecision(results, degraded, cost, calls, this);
    if (unavailable) decision.unavailable = true;
    if (decision.allowed && cost > 0) {
      const leases = calls.filter((call) => call.algorithm.kind === 'concurrency');
      if (leases.length > 0) decision.release = releaseOnce(release, leases, requestId);
    }
    if (this.events.wantsDecisions)
      this.events.decision({ decision, ctx: ctx as KeyContext, keys: calls.map((c) => c.key) });
    return decision;
  }

  /** Gives `cost` units back to `calls`' layers (concurrency slots are left to release()). */
  refund(calls: readonly LayerCall[], cost: number): Promise<void> {
    const layers: LayerCall[] = [];
    for (const call of calls) {
      if (call.algorithm.kind === 'concurrency') continue;
      layers.push({
        key: call.key,
        algorithm: call.algorithm,
        cost: checkCost(call.algorithm, cost, (call as RuleCall).rule?.name ?? call.key),
      });
    }
    if (layers.length === 0) return Promise.resolve();
    return this.#guarded === undefined ? this.store.refund(layers, '') : this.#guarded.refund(layers);
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

function releaseOnce(
  release: (leases: readonly LayerCall[], requestId: string) => Promise<void>,
  leases: readonly LayerCall[],
  requestId: string,
): () => Promise<void> {
  let released: Promise<void> | undefined;
  return () => {
    released ??= release(leases, requestId);
    return released;
  };
}
