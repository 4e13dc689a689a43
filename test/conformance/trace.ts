import type { Algorithm } from '@floodgate/core';
import type { LayerCall } from '@floodgate/core/store';
import type { Random } from '../redis/fixtures/random';

/** One store operation of a trace; the operations of one step touch disjoint keys. */
export interface TraceOp {
  op: 'consume' | 'refund';
  calls: LayerCall[];
  requestId: string;
}

export interface TraceRules {
  a: Algorithm;
  b: Algorithm;
}

const IDENTITIES = ['u0', 'u1', 'u2', 'u3', 'u4'];

/** Costs near the edges are where models differ: 0, 1, a few, and the algorithm's maximum. */
function costFor(random: Random, maxCost: number): number {
  if (random.chance(0.08)) return 0;
  if (random.chance(0.1)) return maxCost;
  return random.int(1, Math.min(3, maxCost));
}

/**
 * Builds the operations of one step. `held` remembers admitted concurrency requests per key, so a
 * refund can release a lease that exists (the way `decision.release()` does).
 */
export function stepOps(
  random: Random,
  rules: TraceRules,
  nextId: () => string,
  held: Map<string, { id: string; cost: number }[]>,
): TraceOp[] {
  const free = {
    a: [...IDENTITIES].sort(() => random.next() - 0.5),
    b: [...IDENTITIES].sort(() => random.next() - 0.5),
  };
  const take = (rule: 'a' | 'b') => `fg:${rule}:{${free[rule].pop()}}`;
  const ops: TraceOp[] = [];
  for (let n = random.int(1, 4); n > 0 && free.a.length > 0 && free.b.length > 0; n--) {
    const roll = random.next();
    if (roll < 0.2) {
      const cost = costFor(random, Math.min(rules.a.maxCost, rules.b.maxCost));
      const calls = [
        { key: take('a'), algorithm: rules.a, cost },
        { key: take('b'), algorithm: rules.b, cost },
      ];
      ops.push({ op: 'consume', calls, requestId: nextId() });
      continue;
    }
    const rule = random.chance(0.5) ? 'a' : 'b';
    const algorithm = rules[rule];
    const key = take(rule);
    if (roll < 0.8) {
      ops.push({
        op: 'consume',
        calls: [{ key, algorithm, cost: costFor(random, algorithm.maxCost) }],
        requestId: nextId(),
      });
    } else if (algorithm.kind === 'concurrency') {
      const leases = held.get(key) ?? [];
      const lease =
        leases.length > 0 && random.chance(0.9) ? leases.splice(random.int(0, leases.length - 1), 1)[0] : undefined;
      const released = lease ?? { id: nextId(), cost: random.int(1, algorithm.maxCost) };
      ops.push({ op: 'refund', calls: [{ key, algorithm, cost: released.cost }], requestId: released.id });
    } else {
      ops.push({
        op: 'refund',
        calls: [{ key, algorithm, cost: random.int(1, Math.min(3, algorithm.maxCost)) }],
        requestId: '',
      });
    }
  }
  return ops;
}
