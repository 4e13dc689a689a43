import { MAX_TIMER_MS } from '../base/duration';
import { AlgorithmFunctionError, InvalidCostError } from '../base/errors';
import { writeHeaders } from './headers';
import { askPriority } from '../limiter/ask-priority';
import { LimiterDecision } from '../limiter/limiter-decision';
import { isThenable } from '../base/thenable';
import { WarningCode } from '../base/warnings';
import { shedDecision } from './adaptive-layer';
import { RequestContext } from './context';
import { type Denial, renderDenial } from './render';
import { StatusBudget } from './status-budget';
import { checkTrust } from './warnings';
import { waitUnlessAborted } from './wait';
import type { AdaptiveSlot } from '../adaptive';
import type { Decision, LayerResult } from '../limiter/decision';
import type { Priority } from '../limiter/types';
import type { MaybePromise } from '../base/thenable';
import type { AddressSource } from './context';
import { closedStatus } from './driver';
import type { HttpDriver, NodeResponse } from './driver';
import type { HttpConfig } from './options';

/** Screens a request for the status route: its own budget instead of the rules. */
const STATUS: unique symbol = Symbol('floodgate.status');

/** The client left during the shaping wait; its units were given back. Do nothing more. */
export const ABORTED: unique symbol = Symbol('floodgate.aborted');

/**
 * What the adapter does next: `undefined`, go on without a decision (skipped, allow-listed, or the
 * limiter could not decide and failMode let it through); a LimiterDecision, the request is admitted
 * (headers are set; expose it as `req.rateLimit`); a Denial, answer it; ABORTED, nothing.
 */
export type GateResult = LimiterDecision | Denial | typeof ABORTED | undefined;

/**
 * The request-handling plan shared by every adapter: skip/allowList, trust warnings, cost,
 * consume, deny or wait (shaping), then the after-response work (release, outcome refunds).
 * It stays synchronous while nothing has to wait, and never throws: a limiter failure follows
 * `failMode`; bad input from the request (a cost it cannot pay, a key it breaks) never does.
 */
export class Gate<Req, Res> implements AddressSource<Req> {
  readonly config: HttpConfig<Req, Res, unknown>;
  readonly driver: HttpDriver<Req, Res>;
  /**
   * Set by the adapter once a status handler is made for this middleware: whether the framework
   * will route a request to one. Such a request is never charged by the rules (see admitStatus).
   */
  statusRouted: ((req: Req) => boolean) | undefined = undefined;
  /** The status handlers made for this middleware, for the adapter's `statusRouted` to look for. */
  readonly statusHandlers = new WeakSet<object>();
  /** Requests admitted to the status route here, so that its handler does not count them again. */
  readonly #statusAdmitted = new WeakSet<object>();
  #statusBudget: StatusBudget | undefined;

  constructor(config: HttpConfig<Req, Res, unknown>, driver: HttpDriver<Req, Res>) {
    this.config = config;
    this.driver = driver;
  }

  /**
   * `earlier`: the decision a previous run left on the request (`req.rateLimit`), if any.
   * `routePriority`: the priority a route gives its requests (the adapters' `.critical`), which
   * stands for the middleware's.
   */
  check(req: Req, res: Res, earlier?: unknown, routePriority?: Priority): MaybePromise<GateResult> {
    try {
      const result = this.#check(req, res, earlier, routePriority);
      return isThenable(result) ? result.then(undefined, (error: unknown) => this.#failed(req, res, error)) : result;
    } catch (error) {
      return this.#failed(req, res, error);
    }
  }

  /** True when the adapter must call `finish` once the response is done (a slot to free, an outcome to judge). */
  needsFinish(decision: LimiterDecision): boolean {
    return (
      decision.release !== undefined || decision.adaptiveSlot !== undefined || this.config.refundWhen !== undefined
    );
  }

  /** The after-response work, once per request: `status` undefined means the client went away first. */
  finish(decision: LimiterDecision, req: Req, res: Res, status?: number): void {
    if (!decision.finishOnce()) return;
    // Only a response that was sent is a latency sample: a client that left says nothing of the service.
    decision.adaptiveSlot?.release(status !== undefined);
    decision.release?.().catch(this.#report);
    const refundWhen = this.config.refundWhen;
    if (refundWhen === undefined) return;
    Promise.resolve()
      .then(() => this.config.requestWasSuccessful?.(req, res, status) ?? false)
      .then((success) => (refundWhen(success) ? decision.refund() : undefined))
      .catch(this.#report);
  }

  /**
   * `finish` when a Node response is done: with its status once it has finished, without one if
   * it closed first (the client left, or the body failed). For the adapters on Node servers.
   */
  finishWith(response: NodeResponse, decision: LimiterDecision, req: Req, res: Res): void {
    response.once('finish', () => this.finish(decision, req, res, response.statusCode));
    response.once('close', () => this.finish(decision, req, res, closedStatus(response)));
  }

  /** A request refused outright (its rules cannot be resolved): 429 without Retry-After. */
  refuse(req: Req, res: Res): MaybePromise<Denial> {
    return this.#deny(req, res, refusal(this.config.engine.clock(), undefined));
  }

  addressOf(req: Req): string | undefined {
    const ip = this.driver.ip(req);
    if (ip === undefined) {
      this.config.warn(
        WarningCode.undefinedIp,
        "the client IP is undefined (the socket may have closed, or the server listens on a unix socket), so byIp() counts every such request under its fallback key (default 'unknown': they all share one bucket)",
      );
    }
    return ip;
  }

  /** True when `earlier` (what a request carries as its `rateLimit`) is a decision this gate made. */
  owns(earlier: unknown): earlier is LimiterDecision {
    return earlier instanceof LimiterDecision && earlier.ownedBy(this);
  }

  #check(req: Req, res: Res, earlier: unknown, routePriority: Priority | undefined): MaybePromise<GateResult> {
    if (this.owns(earlier)) {
      this.#ranTwice(routePriority);
      return earlier;
    }
    const status = this.statusRouted?.(req) === true;
    if (status) this.#statusAdmitted.add(req as object);
    return this.#screen(req, res, status ? STATUS : (routePriority ?? this.config.priority));
  }

  #ranTwice(routePriority: Priority | undefined): void {
    if (routePriority === undefined) {
      this.config.warn(
        WarningCode.doubleCount,
        'the same middleware instance ran twice for one request (mounted on both the app and a router?); it counts the request once and lets the second run through',
      );
      return;
    }
    this.config.warn(
      WarningCode.priorityLate,
      `a route's ${routePriority} priority came after the same middleware had already decided the request (mounted app-wide before the route?), so it was decided as any other request; mount the route before the app-wide middleware`,
    );
  }

  /**
   * A request for the status route: never charged by the rules (a limited client can still ask),
   * but counted against the route's own budget per client address. skip and allowList apply.
   * Undefined: let it through; a Denial: the budget is spent.
   */
  admitStatus(req: Req, res: Res): MaybePromise<Denial | undefined> {
    return this.#screen(req, res, STATUS) as MaybePromise<Denial | undefined>;
  }

  /** Whether this middleware already admitted the request to the status route. */
  admittedToStatus(req: Req): boolean {
    return this.#statusAdmitted.has(req as object);
  }

  /** skip, then allowList, then the limit at the request's priority (or, for STATUS, the status route's budget). */
  #screen(req: Req, res: Res, priority: Priority | typeof STATUS | undefined): MaybePromise<GateResult> {
    const skip = this.config.skip;
    if (skip === undefined) return this.#allowList(req, res, priority);
    const skipped = this.#predicate(skip, req, undefined);
    if (isThenable(skipped)) return skipped.then((yes) => (yes ? undefined : this.#allowList(req, res, priority)));
    return skipped ? undefined : this.#allowList(req, res, priority);
  }

  #allowList(req: Req, res: Res, priority: Priority | typeof STATUS | undefined): MaybePromise<GateResult> {
    const ctx = new RequestContext(req, this, priority === STATUS ? undefined : priority);
    const allowed = this.config.allowed;
    if (allowed === undefined) return this.#limitOrBudget(ctx, res, priority === STATUS);
    const listed = this.#predicate(allowed, req, this.config.allowedByIp ? ctx.ip : undefined);
    if (isThenable(listed))
      return listed.then((yes) => (yes ? undefined : this.#limitOrBudget(ctx, res, priority === STATUS)));
    return listed ? undefined : this.#limitOrBudget(ctx, res, priority === STATUS);
  }

  #limitOrBudget(ctx: RequestContext<Req>, res: Res, status: boolean): MaybePromise<GateResult> {
    if (!status) return this.#limit(ctx, res);
    this.#statusBudget ??= new StatusBudget(this.config.engine.clock);
    const spent = this.#statusBudget.take(ctx.ip);
    return spent === undefined ? undefined : this.#deny(ctx.req, res, spent);
  }

  /** A user's skip or allowList function; one that throws or rejects counts the request (reported once). */
  #predicate(
    fn: (req: Req, ip: string | undefined) => boolean | Promise<boolean>,
    req: Req,
    ip: string | undefined,
  ): MaybePromise<boolean> {
    try {
      const answer = fn(req, ip);
      return isThenable(answer) ? Promise.resolve(answer).then(Boolean, this.#predicateFailed) : Boolean(answer);
    } catch (error) {
      return this.#predicateFailed(error);
    }
  }

  readonly #predicateFailed = (error: unknown): false => {
    this.config.warn(
      WarningCode.skipFailed,
      `the skip or allowList function failed (${error instanceof Error ? error.message : String(error)}); such requests are counted`,
    );
    return false;
  };

  #limit(ctx: RequestContext<Req>, res: Res): MaybePromise<GateResult> {
    checkTrust(this.config.warn, this.driver, ctx.req);
    const costOf = this.config.cost;
    if (costOf === undefined) return this.#consume(ctx, res, 1);
    let cost: unknown;
    try {
      cost = costOf(ctx.req);
    } catch (error) {
      return this.#invalidCost(ctx, res, error, true);
    }
    if (!isThenable(cost)) return this.#consume(ctx, res, cost);
    return Promise.resolve(cost).then(
      (value) => this.#consume(ctx, res, value),
      (error: unknown) => this.#invalidCost(ctx, res, error, true),
    );
  }

  #consume(ctx: RequestContext<Req>, res: Res, cost: unknown): MaybePromise<GateResult> {
    if (typeof cost !== 'number' || !Number.isSafeInteger(cost) || cost < 0) {
      return this.#invalidCost(ctx, res, cost, false);
    }
    // The adaptive layer decides first: a request it sheds is never charged by the rules.
    const adaptive = this.config.adaptive;
    let slot: AdaptiveSlot | undefined;
    if (adaptive !== undefined) {
      slot = adaptive.acquire(this.#adaptivePriority(ctx));
      if (slot === undefined) return this.#shed(ctx, res);
    }
    let decision: MaybePromise<LimiterDecision>;
    try {
      decision = this.config.engine.decide(ctx, cost, ctx.priority);
    } catch (error) {
      slot?.release(false);
      if (refused(error)) return this.#refuse(ctx, res, error);
      throw error;
    }
    if (!isThenable(decision)) return this.#settle(ctx, res, decision, slot);
    return decision.then(
      (settled) => this.#settle(ctx, res, settled, slot),
      (error: unknown) => {
        slot?.release(false);
        if (refused(error)) return this.#refuse(ctx, res, error);
        throw error;
      },
    );
  }

  /** A word (the route's, the middleware's) decides; else the layer's or the middleware's function. */
  #adaptivePriority(ctx: RequestContext<Req>): Priority | undefined {
    if (ctx.priority !== undefined) return ctx.priority;
    const priority = this.config.adaptivePriority;
    return priority === undefined ? undefined : askPriority(priority, ctx.req, this.config.warn);
  }

  /** Shed by the adaptive layer: 503, reported to the limiter's events like any denial. */
  #shed(ctx: RequestContext<Req>, res: Res): MaybePromise<Denial> {
    const decision = shedDecision(
      this.config.adaptive as NonNullable<HttpConfig['adaptive']>,
      this.config.engine.clock(),
    );
    const events = this.config.engine.events;
    if (events.wantsDecisions) events.decision({ decision, ctx, keys: [] });
    return this.#deny(ctx.req, res, decision);
  }

  #settle(
    ctx: RequestContext<Req>,
    res: Res,
    decision: LimiterDecision,
    slot: AdaptiveSlot | undefined,
  ): MaybePromise<GateResult> {
    if (!decision.allowed) {
      slot?.release(false);
      return this.#deny(ctx.req, res, decision);
    }
    if (decision.cost === 0) {
      const exhausted = freeButExhausted(decision, this.config.engine.clock());
      if (exhausted !== undefined) {
        slot?.release(false);
        return this.#deny(ctx.req, res, exhausted);
      }
    }
    if (slot !== undefined) decision.adaptiveSlot = slot;
    if (decision.delay > 0) return this.#shape(ctx.req, res, decision);
    return this.#admit(res, decision);
  }

  #admit(res: Res, decision: LimiterDecision): LimiterDecision {
    decision.claim(this);
    writeHeaders(decision, this.config.modes, this.config.engine.clock(), res, this.driver.setHeader);
    return decision;
  }

  #deny(req: Req, res: Res, decision: Decision): MaybePromise<Denial> {
    writeHeaders(decision, this.config.modes, this.config.engine.clock(), res, this.driver.setHeader);
    return renderDenial(this.config, req, this.driver.header(req, 'accept'), decision);
  }

  /** Shaping: wait `delay` before the handler, unless it is longer than `maxDelay` or the client leaves. */
  async #shape(req: Req, res: Res, decision: LimiterDecision): Promise<GateResult> {
    // Without maxDelay the wait is still capped at what a timer can count: longer would fire at once.
    const maxDelay = this.config.maxDelay ?? MAX_TIMER_MS;
    if (decision.delay > maxDelay) {
      await this.#undo(decision);
      const late = { ...decision, allowed: false, retryAfter: decision.delay - maxDelay, delay: 0 };
      return this.#deny(req, res, late);
    }
    if (!(await waitUnlessAborted(decision.delay, this.driver.abortSignal(req, res)))) {
      await this.#undo(decision);
      return ABORTED;
    }
    return this.#admit(res, decision);
  }

  async #undo(decision: LimiterDecision): Promise<void> {
    decision.adaptiveSlot?.release(false);
    await Promise.all([decision.release?.().catch(this.#report), decision.refund()]);
  }

  /**
   * A cost that is not a whole number >= 0 (or a cost function that failed) is the request's
   * doing: it is refused, never waved through by failMode, and reported once.
   */
  #invalidCost(ctx: RequestContext<Req>, res: Res, value: unknown, threw: boolean): MaybePromise<GateResult> {
    const what = threw
      ? `threw ${value instanceof Error ? value.message : String(value)}`
      : `returned ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
    this.config.warn(
      WarningCode.invalidCost,
      `the cost function ${what}; a cost must be a whole number >= 0, so such requests are refused`,
    );
    return this.#deny(ctx.req, res, refusal(this.config.engine.clock(), undefined));
  }

  /**
   * A cost larger than a layer can ever grant, or a rule whose algorithm function failed: refused,
   * with no Retry-After (waiting would not help). The engine reported the algorithm function.
   */
  #refuse(
    ctx: RequestContext<Req>,
    res: Res,
    error: InvalidCostError | AlgorithmFunctionError,
  ): MaybePromise<GateResult> {
    if (error instanceof InvalidCostError)
      this.config.warn(WarningCode.invalidCost, `${error.message}; such requests are refused`);
    return this.#deny(ctx.req, res, refusal(this.config.engine.clock(), undefined));
  }

  /** The limiter itself failed (not the store, which the limiter handles): failMode decides. */
  #failed(req: Req, res: Res, error: unknown): MaybePromise<GateResult> {
    this.#report(error, 'consume');
    if (this.config.failMode !== 'closed') return undefined;
    return this.#deny(req, res, unavailable(this.config.engine.clock()));
  }

  readonly #report = (error: unknown, operation: 'consume' | 'refund' = 'refund'): void => {
    this.config.engine.events.storeError({ error, operation });
  };
}

/** The request's own doing, never failMode's to wave through. */
export function refused(error: unknown): error is InvalidCostError | AlgorithmFunctionError {
  return error instanceof InvalidCostError || error instanceof AlgorithmFunctionError;
}

/**
 * A request of cost 0 charges nothing, but it passes only while the client has room: a cost
 * function that turns a bad input into 0 (`Number('')`) must not open a way past an exhausted
 * limit. Its wait is the exhausted layers' reset, which is never earlier than their first free unit.
 * A shadow layer is only measured: its being used up refuses nothing.
 */
function freeButExhausted(decision: LimiterDecision, now: number): Decision | undefined {
  if (decision.results.every(hasRoom)) return undefined;
  const results = decision.results.map((layer) =>
    hasRoom(layer) ? layer : { ...layer, allowed: false, retryAfter: Math.max(1, layer.resetAt - now) },
  );
  const retryAfter = Math.max(...results.map((layer) => layer.retryAfter));
  return { ...decision, allowed: false, retryAfter, delay: 0, results, release: undefined };
}

function hasRoom(layer: LayerResult): boolean {
  return layer.shadow || layer.remaining >= 1;
}

/** A denial that no wait can turn into an admission: no layer numbers, no Retry-After. */
function refusal(now: number, rule: string | undefined): Decision {
  return {
    allowed: false,
    limit: 0,
    remaining: 0,
    resetAt: now,
    retryAfter: 0,
    delay: 0,
    rule,
    results: [],
    degraded: false,
    shadowDenied: false,
  };
}

/** The decision behind a 503 when the limiter could not decide and failMode is 'closed'. */
function unavailable(now: number): Decision {
  const retryAfter = 1000;
  return {
    allowed: false,
    limit: 0,
    remaining: 0,
    resetAt: now + retryAfter,
    retryAfter,
    delay: 0,
    rule: undefined,
    results: [],
    degraded: true,
    shadowDenied: false,
    unavailable: true,
  };
}
