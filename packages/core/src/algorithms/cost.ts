import { InvalidCostError, show } from '../errors';
import type { Algorithm } from './types';

/** Checks a per-call cost: an integer from 0 to the algorithm's maxCost. */
export function checkCost(algorithm: Algorithm, cost: unknown, rule: string): number {
  if (typeof cost !== 'number' || !Number.isSafeInteger(cost) || cost < 0) {
    throw new InvalidCostError(`cost must be an integer >= 0, got ${show(cost)}`);
  }
  if (cost > algorithm.maxCost) {
    throw new InvalidCostError(
      `cost ${cost} exceeds what rule "${rule}" (${algorithm.kind}) can ever admit: at most ${algorithm.maxCost}`,
    );
  }
  return cost;
}
