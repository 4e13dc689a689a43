import { InvalidOptionTypeError } from '../base/errors';
import { isThenable } from '../base/thenable';
import { TurnQueue } from './turn-queue';
import type { LimiterDecision } from '../limiter/limiter-decision';
import type { Priority } from '../limiter/types';
import type { NodeResponse } from './driver';
import type { Gate, GateResult } from './gate';

// Steps every adapter takes around its Gate, written once. Each is made once per middleware and
// works on plain arguments: none makes a closure per request unless the decision has to wait.

/** A callback-style step: (request, response, next), where next(error) reports a failure. */
type Step<Req, Res, Next> = (req: Req, res: Res, next: Next) => void;

/**
 * A callback-style middleware step (Express middleware, a Fastify hook): the gate's result for the
 * request goes to `apply`, at once or when it settles; a throw from `apply` goes to `next` as an
 * error. `earlier` reads the decision a middleware of the same chain already made for the request.
 */
export function checkStep<Req, Res, Next extends (error?: never) => void>(
  gate: Gate<Req, Res>,
  priority: Priority | undefined,
  earlier: (req: Req) => unknown,
  apply: (result: GateResult, req: Req, res: Res, next: Next) => void,
): Step<Req, Res, Next> {
  return (req, res, next) => {
    try {
      const result = gate.check(req, res, earlier(req), priority);
      if (isThenable(result)) result.then((settled) => apply(settled, req, res, next), next);
      else apply(result, req, res, next);
    } catch (error) {
      next(error as never);
    }
  };
}

/**
 * `step` behind a TurnQueue, named `name` (frameworks show it in stacks and hook lists): where
 * there is setImmediate, the requests of one turn are decided together; elsewhere each at once.
 */
export function inTurns<Req, Res, Next>(name: string, step: Step<Req, Res, Next>): Step<Req, Res, Next> {
  const turn = new TurnQueue(step);
  const batched: Step<Req, Res, Next> = (req, res, next) => {
    if (turn.batching) turn.push(req, res, next);
    else step(req, res, next);
  };
  return Object.defineProperty(batched, 'name', { value: name });
}

/**
 * Ties an admitted request's after-response work (see Gate.finish) to its Node response, when it
 * has any: done at once if the response has closed already.
 */
export function finishOnNode<Req, Res>(
  gate: Gate<Req, Res>,
  response: NodeResponse & { readonly closed?: boolean },
  decision: LimiterDecision,
  req: Req,
  res: Res,
): void {
  if (!gate.needsFinish(decision)) return;
  if (response.closed === true) gate.finish(decision, req, res);
  else gate.finishWith(response, decision, req, res);
}

/**
 * Runs the rest of the chain, then the after-response work with the status `statusOf` reads; also
 * when the client leaves first (`signal`, the Fetch request's, aborts). For runtimes without a
 * Node response, where the response exists once the chain has returned.
 */
export async function finishAround<Req, Res>(
  gate: Gate<Req, Res>,
  decision: LimiterDecision,
  req: Req,
  res: Res,
  signal: AbortSignal,
  next: () => Promise<void>,
  statusOf: (res: Res) => number,
): Promise<void> {
  const onAbort = () => gate.finish(decision, req, res);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await next();
  } finally {
    signal.removeEventListener('abort', onAbort);
    gate.finish(decision, req, res, statusOf(res));
  }
}

/** A middleware's gate and how its adapter answers a denial: what its status route needs. */
export interface StatusOwner<Req, Res, Deny> {
  readonly gate: Gate<Req, Res>;
  readonly deny: Deny;
}

/** The middlewares an adapter made, each with its StatusOwner, for `rateLimitStatus(middleware)`. */
export class StatusOwners<Req, Res, Deny> {
  readonly #owners = new WeakMap<object, StatusOwner<Req, Res, Deny>>();

  /** `maker`: the function that makes the middlewares, for the error. */
  constructor(private readonly maker: string) {}

  add<M extends object>(middleware: M, gate: Gate<Req, Res>, deny: Deny): M {
    this.#owners.set(middleware, { gate, deny });
    return middleware;
  }

  /** The owner of `middleware`; a coded error for anything this adapter did not make. */
  of(middleware: unknown): StatusOwner<Req, Res, Deny> {
    const owner = typeof middleware === 'function' ? this.#owners.get(middleware) : undefined;
    if (owner === undefined) {
      throw new InvalidOptionTypeError(
        `rateLimitStatus needs a middleware made by ${this.maker}(), got something else`,
      );
    }
    return owner;
  }
}
