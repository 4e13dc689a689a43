import { Inject, Injectable } from '@nestjs/common';
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ABORTED, Denial, isThenable, TurnQueue } from '@floodgate/core/http';
import type { GateResult } from '@floodgate/core/http';
import { nodeResponse, TRACKER } from './driver';
import { denialException, RateLimitException } from './exception';
import { FloodgateService } from './service';
import type { NestGate, RoutePlan } from './service';
import type { NestRequest, RateLimitOptions } from './options';
import { RATE_LIMIT_METADATA, SKIP_RATE_LIMIT_METADATA, STATUS_ROUTE_METADATA } from './tokens';

type Plan = RoutePlan;
type Settle = (admitted: boolean) => void;
type Fail = (error: unknown) => void;

/**
 * The rate-limit guard: as `APP_GUARD` (every route), with `@UseGuards(FloodgateGuard)` on a
 * controller or on a handler. On @nestjs/platform-express and @nestjs/platform-fastify alike.
 * A denied request throws RateLimitException (429) with the rate-limit headers set; an admitted
 * one carries its decision as `req.rateLimit`.
 *
 * Subclass it to change who the client is (`getTracker`) or where the request is
 * (`getRequestResponse`, for GraphQL). WebSocket and microservice contexts are let through: the
 * guard limits HTTP requests only.
 */
@Injectable()
export class FloodgateGuard implements CanActivate {
  constructor(
    @Inject(FloodgateService) protected readonly floodgate: FloodgateService,
    @Inject(Reflector) protected readonly reflector: Reflector,
  ) {}

  /**
   * The requests that reach the guard during one turn of the event loop are decided together, once
   * the turn's I/O is done (see TurnQueue): Nest runs each request's guards in a microtask chain of
   * its own, so deciding each at once would send each one to the store alone (RedisStore batches
   * what is asked within one microtask turn), and answer them one by one.
   */
  readonly #turn = new TurnQueue((context: ExecutionContext, settle: Settle, fail: Fail) => {
    try {
      const outcome = this.#decide(context);
      if (typeof outcome === 'boolean') settle(outcome);
      else if (outcome instanceof RateLimitException) fail(outcome);
      else outcome.then(settle, fail);
    } catch (error) {
      fail(error);
    }
  });

  /** Whether a subclass names the client itself; else the driver reads `req.ip`, as getTracker does. */
  readonly #ownTracker = countTracker(this.getTracker !== FloodgateGuard.prototype.getTracker);

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const type = context.getType<string>();
    if (type === 'ws' || type === 'rpc') return true;
    if (this.#planFor(context).skip) return true;
    if (!this.#turn.batching) return admitted(this.#decide(context));
    return new Promise((settle, fail) => this.#turn.push(context, settle, fail));
  }

  /**
   * Who the client is, for the rules keyed by address (`byIp`, the short form, `layered`'s ip
   * layer). Default `req.ip`: Express' and Fastify's own, after the proxies the platform trusts
   * (`app.set('trust proxy', ...)`, `new FastifyAdapter({ trustProxy })`). Return a stable id
   * (never a header a client can set unless your proxy overwrites it).
   */
  getTracker(req: NestRequest): string | undefined {
    return req.ip;
  }

  /**
   * The request and the response for an execution context; override it for GraphQL:
   * `const { req, res } = GqlExecutionContext.create(context).getContext(); return { req, res };`
   */
  getRequestResponse(context: ExecutionContext): { req: NestRequest; res: NestRequest } {
    const http = context.switchToHttp();
    return { req: http.getRequest(), res: http.getResponse() };
  }

  /**
   * The gate's answer for a request: admitted or not, or the exception a denial throws (returned,
   * for the turn to reject with it: throwing it there would only be caught again).
   */
  #decide(context: ExecutionContext): boolean | RateLimitException | Promise<boolean> {
    const plan = this.#planFor(context);
    if (plan.skip) return true;
    const gate = plan.gate;
    const { req, res } = this.getRequestResponse(context);
    // Another Floodgate guard (the app's, and a subclass on the controller, say) decided this
    // request on this route already: it is counted once, its decision and tracker stand.
    if (gate.owns(req.rateLimit)) return true;
    // Marked only for a tracker of its own (a property added to every request, or looked up on
    // every one, was the costliest line of the guard); unmarked when a guard with one may have run.
    if (this.#ownTracker) req[TRACKER] = this;
    else if (trackingGuards > 0 && req[TRACKER] !== undefined) req[TRACKER] = undefined;
    // The gate's own test of `req.rateLimit` is the one above: not asked twice.
    const result = gate.check(req, res, undefined);
    if (!isThenable(result)) return this.#apply(result, gate, req, res);
    return Promise.resolve(result).then((settled) => admitted(this.#apply(settled, gate, req, res)));
  }

  #apply(result: GateResult, gate: NestGate, req: NestRequest, res: NestRequest): boolean | RateLimitException {
    if (result === undefined) return true;
    if (result === ABORTED) return false;
    if (result instanceof Denial) return denialException(result, res);
    req.rateLimit = result;
    this.floodgate.decided(req, gate);
    if (gate.needsFinish(result)) {
      const raw = nodeResponse(res);
      if (raw === undefined || (raw as { closed?: boolean }).closed === true) gate.finish(result, req, res);
      else gate.finishWith(raw, result, req, res);
    }
    return true;
  }

  /** The handler's plan, made on its first request and kept by the service for every guard. */
  #planFor(context: ExecutionContext): Plan {
    const controller = context.getClass();
    const handler = context.getHandler();
    const kept = this.floodgate.planOf(controller, handler);
    return kept ?? this.floodgate.keepPlan(controller, handler, this.#makePlan(controller, handler));
  }

  #makePlan(controller: object, handler: object): Plan {
    const targets = [handler, controller] as unknown as Parameters<Reflector['getAllAndOverride']>[1];
    // The status controller answers under its own budget: its requests are never charged here.
    if (this.reflector.get(STATUS_ROUTE_METADATA, controller as never) === true) return { skip: true };
    const skip = this.reflector.getAllAndOverride<true | false | readonly string[] | undefined>(
      SKIP_RATE_LIMIT_METADATA,
      targets,
    );
    if (skip === true) return { skip: true };
    const fromClass = this.reflector.get<RateLimitOptions | undefined>(RATE_LIMIT_METADATA, controller as never);
    const fromHandler = this.reflector.get<RateLimitOptions | undefined>(RATE_LIMIT_METADATA, handler as never);
    const own = fromClass === undefined && fromHandler === undefined ? undefined : { ...fromClass, ...fromHandler };
    const name = (controller as { name?: string }).name ?? 'anonymous';
    const method = (handler as { name?: string }).name ?? 'anonymous';
    return this.floodgate.plan(`${name}.${method}`, own, Array.isArray(skip) ? skip : []);
  }
}

/** How many guards made so far name the client with a getTracker of their own. */
let trackingGuards = 0;

function countTracker(own: boolean): boolean {
  if (own) trackingGuards++;
  return own;
}

/** What canActivate answers for an outcome: a denial's exception is thrown. */
function admitted<T extends boolean | Promise<boolean>>(outcome: T | RateLimitException): T {
  if (outcome instanceof RateLimitException) throw outcome;
  return outcome;
}
