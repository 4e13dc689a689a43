import { algorithmProblem } from '../algorithms/shape';
import { AlgorithmFunctionError, show } from '../base/errors';
import { isThenable } from '../base/thenable';
import { WarningCode } from '../base/warnings';
import { Failure, toFailure, toTimeout } from './function-failure';
import type { Algorithm } from '../algorithms/types';
import type { Warn } from '../base/warnings';
import type { Deadlines } from '../resilience/deadline';
import type { CompiledRule } from './rules';
import type { AlgorithmFunction } from './types';

/**
 * Per-tenant algorithms: a rule whose `algorithm` is a function asks it per request, gives it the
 * limiter's `timeout` to answer, and checks what it returns as a rule's own algorithm is checked.
 */
export class AlgorithmChoice<Req> {
  readonly #deadlines: Deadlines;
  readonly #warn: Warn;

  constructor(deadlines: Deadlines, warn: Warn) {
    this.#deadlines = deadlines;
    this.#warn = warn;
  }

  /**
   * What the function answers for `req`: an algorithm (unchecked yet), a Failure, or a promise of
   * either that never rejects (a rejection from the deadline is the deadline's).
   */
  ask(algorithmOf: AlgorithmFunction<Req>, req: Req): unknown {
    let algorithm: unknown;
    try {
      algorithm = algorithmOf(req);
    } catch (error) {
      return new Failure(error);
    }
    if (!isThenable(algorithm)) return algorithm;
    return this.#deadlines.watch(Promise.resolve(algorithm).catch(toFailure)).catch(toTimeout);
  }

  /**
   * The algorithm `ask` settled on. A per-request algorithm that failed is not the client's to
   * exploit: the request is refused (the gate answers 429 without Retry-After), never decided by
   * failMode, and the failure reported once per rule.
   */
  chosen(rule: CompiledRule<Req>, chosen: unknown): Algorithm {
    let reason: string;
    if (chosen instanceof Failure) {
      reason = chosen.timedOut
        ? `did not settle within ${this.#deadlines.timeoutMs} ms (the limiter's timeout)`
        : `threw ${chosen.error instanceof Error ? chosen.error.message : show(chosen.error)}`;
    } else {
      const problem = algorithmProblem(chosen);
      if (problem === undefined) return chosen as Algorithm;
      reason = `returned ${show(chosen)}, which is not an algorithm: ${problem} (expected one made by a factory such as fixedWindow({ limit, window }))`;
    }
    this.#warn(
      WarningCode.algorithmFunctionFailed,
      `the algorithm function of rule "${rule.name}" ${reason}; such requests are refused`,
      rule.name,
    );
    const cause = chosen instanceof Failure && !chosen.timedOut ? chosen.error : undefined;
    throw new AlgorithmFunctionError(rule.name, reason, cause);
  }
}
