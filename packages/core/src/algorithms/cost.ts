import { InvalidCostError, show } from '../base/errors';
import type { Algorithm } from './types';

/** True for a cost a layer can be asked for: a whole number of units, 0 or more. */
export function isWholeCost(cost: unknown): cost is number {
  return typeof cost === 'number' && Number.isSafeInteger(cost) && cost >= 0;
}

/** The most one call may cost: the whole capacity for a critical request, all but the reserve otherwise. */
export function costCeiling(algorithm: Algorithm, critical: boolean): number {
  return critical ? algorithm.maxCost : algorithm.maxCost - algorithm.reserve;
}

/**
 * Checks a per-call cost: an integer from 0 to the algorithm's maxCost, or, for a request that may
 * not use the reserve, to maxCost - reserve (more could never pass: waiting would not help).
 */
export function checkCost(algorithm: Algorithm, cost: unknown, rule: string, critical = true): number {
  if (!isWholeCost(cost)) {
    throw new InvalidCostError(`cost must be an integer >= 0, got ${show(cost)}`);
  }
  if (cost > algorithm.maxCost) {
    throw new InvalidCostError(
      `cost ${cost} exceeds what rule "${rule}" (${algorithm.kind}) can ever admit: at most ${algorithm.maxCost}`,
    );
  }
  if (cost > costCeiling(algorithm, critical)) {
    throw new InvalidCostError(
      `cost ${cost} exceeds what rule "${rule}" (${algorithm.kind}) can ever admit for a normal request: at most ${algorithm.maxCost - algorithm.reserve} (${algorithm.reserve} are kept for critical requests)`,
    );
  }
  return cost;
}

/** Checks the units a refund gives back: a whole number, 0 or more (the cap is the caller's). */
export function checkRefund(units: unknown): number {
  if (!isWholeCost(units)) {
    throw new InvalidCostError(`refund: the units to give back must be an integer >= 0, got ${show(units)}`);
  }
  return units;
}
