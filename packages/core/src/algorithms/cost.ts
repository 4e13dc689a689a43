import { InvalidCostError, show } from '../errors';
import type { Algorithm } from './types';

/**
 * Checks a per-call cost: an integer from 0 to the algorithm's maxCost, or, for a request that may
 * not use the reserve, to maxCost - reserve (more could never pass: waiting would not help).
 */
export function checkCost(algorithm: Algorithm, cost: unknown, rule: string, critical = true): number {
  if (typeof cost !== 'number' || !Number.isSafeInteger(cost) || cost < 0) {
    throw new InvalidCostError(`cost must be an integer >= 0, got ${show(cost)}`);
  }
  if (cost > algorithm.maxCost) {
    throw new InvalidCostError(
      `cost ${cost} exceeds what rule "${rule}" (${algorithm.kind}) can ever admit: at most ${algorithm.maxCost}`,
    );
  }
  if (!critical && cost > algorithm.maxCost - algorithm.reserve) {
    throw new InvalidCostError(
      `cost ${cost} exceeds what rule "${rule}" (${algorithm.kind}) can ever admit for a normal request: at most ${algorithm.maxCost - algorithm.reserve} (${algorithm.reserve} are kept for critical requests)`,
    );
  }
  return cost;
}
