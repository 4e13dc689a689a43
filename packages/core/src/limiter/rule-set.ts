import { algorithmTag } from '../algorithms/algorithm-tag';
import type { Algorithm } from '../algorithms/types';
import type { CompiledRule } from './rules';

/**
 * The rules a limiter decides with, and what it derives from them once. A limiter whose rules are
 * reloaded swaps the whole set in one assignment; a request reads the set once, at its start, so
 * it is decided by one set from its first key to its last layer.
 */
export interface RuleSet<Req> {
  readonly rules: readonly CompiledRule<Req>[];
  /** Each rule's key up to the identity, for rules whose algorithm is fixed. */
  readonly keyStarts: readonly (string | undefined)[];
  /** Sliding log entries and concurrency leases are stored under the request's id; nothing else needs one. */
  readonly needsRequestId: boolean;
  readonly hasLeases: boolean;
}

export function ruleSetOf<Req>(rules: readonly CompiledRule<Req>[], prefix: string): RuleSet<Req> {
  return {
    rules,
    keyStarts: rules.map((rule) =>
      rule.algorithm === undefined ? undefined : keyStartOf(prefix, rule, rule.algorithm),
    ),
    // A per-request algorithm may be either.
    needsRequestId: rules.some(
      (rule) =>
        rule.algorithm === undefined || rule.algorithm.kind === 'slidingLog' || rule.algorithm.kind === 'concurrency',
    ),
    hasLeases: rules.some((rule) => rule.lease !== undefined),
  };
}

/**
 * A rule's storage key up to its identity. It depends only on the prefix, the rule's name and its
 * algorithm's parameters: a rule that a reload leaves unchanged keeps its keys, and its counts.
 */
export function keyStartOf(prefix: string, rule: { readonly name: string }, algorithm: Algorithm): string {
  return `${prefix}:${rule.name}:${algorithmTag(algorithm)}:{`;
}
