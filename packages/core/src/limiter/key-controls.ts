import { InvalidOptionError, show } from '../base/errors';
import { ownedBy } from '../keys/scope';
import type { KeyContext } from '../keys/context';
import type { ControlOperation, GuardedStore } from '../resilience/guarded-store';
import type { KeyResolution } from './key-resolution';
import type { Leasing } from './leasing';
import type { RuleCall } from './rule-call';
import type { CompiledRule } from './rules';

/**
 * The operator's side of penalties: reset, block and unblock of a request's own keys (its
 * client-scope rules) or of the rule named. (A rule's own penalty travels with each of its store
 * calls and is applied by the store when the layer denies.)
 */
export class KeyControls<Req> {
  readonly #keys: KeyResolution<Req>;
  readonly #guarded: GuardedStore;
  #leasing: Leasing | undefined;

  constructor(keys: KeyResolution<Req>, guarded: GuardedStore, leasing: Leasing | undefined) {
    this.#keys = keys;
    this.#guarded = guarded;
    this.#leasing = leasing;
  }

  /** Leases began (a reload brought the first leased rule): controls drop their pools too. */
  leaseWith(leasing: Leasing): void {
    this.#leasing = leasing;
  }

  /** Resets, blocks or unblocks the request's own keys, or the rule named. Rejects when the store cannot. */
  async control(operation: ControlOperation, ctx: KeyContext<Req>, rule: string | undefined, duration = 0) {
    // The rules now: the resolve below reads the same set (nothing is awaited in between).
    const rules = this.#keys.rules;
    if (rule !== undefined && !rules.some((each) => each.name === rule)) {
      throw new InvalidOptionError(
        `${operation}: no rule is named ${show(rule)}; the rules are ${rules.map((each) => each.name).join(', ')}`,
      );
    }
    if (rule === undefined && !rules.some((each) => each.scope === 'client')) {
      throw new InvalidOptionError(
        `${operation}: every rule of this limiter is shared by many clients (${rules.map((each) => each.name).join(', ')}), so ${operation} for a request has no key of its own to act on. Name the rule to ${operation} a shared key ({ rule: '${(rules[0] as CompiledRule<Req>).name}' }), or give a rule whose key identifies one client scope: 'client'`,
      );
    }
    const calls = selected(await this.#keys.resolve(ctx, 0), ctx, rule);
    if (calls.length === 0) return;
    this.#leasing?.drop(calls.map((call) => call.key));
    await this.#guarded.control(operation, calls, duration);
  }

  /** The layers of `ctx` that are its client's own (the status route reports these), charging nothing. */
  async ownCalls(ctx: KeyContext<Req>): Promise<RuleCall[]> {
    return selected(await this.#keys.resolve(ctx, 0), ctx, undefined);
  }
}

/** The rule named, whatever its scope; otherwise the client-scope layers whose key is this request's own. */
function selected<Req>(calls: RuleCall[], ctx: KeyContext<Req>, rule: string | undefined): RuleCall[] {
  if (rule !== undefined) return calls.filter((call) => call.rule.name === rule);
  return calls.filter((call) => call.rule.scope === 'client' && ownedBy(call.rule.key, ctx as KeyContext));
}
