import { show } from '../base/errors';
import { isAlgorithmKind } from './algorithm-tag';
import type { Algorithm } from './types';
const METHODS = ['decide', 'refund', 'divide'] as const;
const SIZES = ['limit', 'window', 'maxCost'] as const;

/** Values already found to be algorithms: the factories hand back one object per option set. */
const checked = new WeakSet<object>();

/**
 * Why `value` is not an algorithm the limiter and its stores can run, or undefined when it is one:
 * a kind the stores know, its three methods, and the numbers they read. Checked where an
 * algorithm is given (a rule, or what a rule's algorithm function returns), so that a look-alike
 * (`{ decide() {} }`) is refused there, with a reason, instead of failing inside a store call.
 */
export function algorithmProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return `it is ${show(value)}`;
  if (checked.has(value)) return undefined;
  const fields = value as Partial<Record<keyof Algorithm, unknown>>;
  if (!isAlgorithmKind(fields.kind)) return `its kind is ${show(fields.kind)}`;
  for (const method of METHODS) {
    if (typeof fields[method] !== 'function') return `it has no ${method}() method`;
  }
  for (const size of SIZES) {
    const number = fields[size];
    if (!Number.isSafeInteger(number) || (number as number) < 1) return `its ${size} is ${show(number)}`;
  }
  const reserve = fields.reserve;
  if (!Number.isSafeInteger(reserve) || (reserve as number) < 0) return `its reserve is ${show(reserve)}`;
  if (!Array.isArray(fields.params) || !fields.params.every(Number.isFinite)) return 'its params are not numbers';
  if (typeof fields.options !== 'object' || fields.options === null) return `its options are ${show(fields.options)}`;
  checked.add(value);
  return undefined;
}

/** True for an algorithm made by one of the factories (or one with everything they give it). */
export function isAlgorithm(value: unknown): value is Algorithm {
  return algorithmProblem(value) === undefined;
}
