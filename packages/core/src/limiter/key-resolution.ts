import { checkCost, costCeiling, isWholeCost } from '../algorithms/cost';
import { show } from '../base/errors';
import { isThenable } from '../base/thenable';
import { WarningCode } from '../base/warnings';
import { ipKey } from '../keys/by-ip';
import { encodeIdentity } from '../keys/identity';
import { askPriority } from './ask-priority';
import { Failure, toFailure, toTimeout } from './function-failure';
import { keyStartOf } from './rule-set';
import type { MaybePromise } from '../base/thenable';
import type { Warn } from '../base/warnings';
import type { KeyContext } from '../keys/context';
import type { Deadlines } from '../resilience/deadline';
import type { AlgorithmChoice } from './algorithm-choice';
import type { RuleCall } from './rule-call';
import type { RuleSet } from './rule-set';
import type { CompiledRule } from './rules';
import type { Priority, PriorityFunction } from './types';

/**
 * Turns a request into its store calls: each rule's key (`prefix:rule:algorithm:{identity}`), its
 * algorithm (the rule's own, or the one its function picks for this request), its priority and
 * its checked cost. Synchronous unless a key or algorithm function answers with a promise. A
 * request reads the current rule set once, at its start, and is resolved by that set throughout:
 * a reload (`use`) decides the requests that start after it.
 */
export class KeyResolution<Req> {
  readonly #prefix: string;
  #set: RuleSet<Req>;
  readonly #warn: Warn;
  readonly #choice: AlgorithmChoice<Req>;
  /** A key function is held to the limiter's timeout, as an algorithm function is. */
  readonly #deadlines: Deadlines;

  constructor(prefix: string, set: RuleSet<Req>, choice: AlgorithmChoice<Req>, warn: Warn, deadlines: Deadlines) {
    this.#deadlines = deadlines;
    this.#prefix = prefix;
    this.#set = set;
    this.#choice = choice;
    this.#warn = warn;
  }

  /** The rules requests are resolved by now. */
  get rules(): readonly CompiledRule<Req>[] {
    return this.#set.rules;
  }

  /** Makes `set` the rules of every request that starts from now on (one assignment: a reload). */
  use(set: RuleSet<Req>): void {
    this.#set = set;
  }

  /** The store calls for the layers that apply to `ctx`, each checked against `cost`. */
  resolve(ctx: KeyContext<Req>, cost: number, priority?: Priority): MaybePromise<RuleCall[]> {
    const set = this.#set;
    const rules = set.rules;
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
        // A key that never comes must not hold the request: past the deadline it counts by address.
        value = this.#deadlines.watch(Promise.resolve(value).catch(toFailure)).catch(toTimeout);
      }
      values[i] = value;
      // A rule that does not apply (its key said so at once) needs no algorithm.
      if (rule.algorithmOf !== undefined && value !== undefined) {
        algorithms ??= new Array(rules.length);
        const algorithm = this.#choice.ask(rule.algorithmOf, ctx.req);
        if (isThenable(algorithm)) pending = true;
        algorithms[i] = algorithm;
      }
    }
    if (!pending) return this.#callsFor(ctx, set, values, algorithms, cost, priority);
    return Promise.all([Promise.all(values), algorithms && Promise.all(algorithms)]).then(([keys, chosen]) =>
      this.#callsFor(ctx, set, keys, chosen, cost, priority),
    );
  }

  #callsFor(
    ctx: KeyContext<Req>,
    set: RuleSet<Req>,
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
      const rule = set.rules[i] as CompiledRule<Req>;
      const identity = this.#identity(rule, ctx, values[i]);
      if (identity === undefined) continue;
      let algorithm = rule.algorithm;
      let keyStart = set.keyStarts[i];
      if (algorithm === undefined) {
        algorithm = this.#choice.chosen(rule, algorithms?.[i]);
        keyStart = keyStartOf(this.#prefix, rule, algorithm);
      }
      let isCritical: boolean;
      if (priority !== undefined && !rule.ownPriority) {
        isCritical = given;
      } else {
        if (rule.priority !== undefined && rule.priority !== askedPriority) {
          askedPriority = rule.priority;
          critical = askPriority(rule.priority, ctx.req, this.#warn) === 'critical';
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
        ? value.timedOut
          ? `did not settle within ${this.#deadlines.timeoutMs} ms (the limiter's timeout)`
          : `threw ${value.error instanceof Error ? value.error.message : show(value.error)}`
        : `returned ${show(value)} (expected a string or undefined)`;
    this.#warn(
      WarningCode.keyFunctionFailed,
      `the key function of rule "${rule.name}" ${reason}; such requests are counted under that rule by client address`,
      rule.name,
    );
    const ip = ctx.ip;
    return `!${typeof ip === 'string' && ip !== '' ? encodeIdentity(ipKey(ip, 56)) : 'unknown'}`;
  }
}
