import { Inject, Injectable } from '@nestjs/common';
import type { OnApplicationShutdown } from '@nestjs/common';
import { InvalidOptionTypeError } from '@floodgate/core';
import type { ConsumeOptions, Decision, Duration, RuleSelector } from '@floodgate/core';
import { controlsOf, Gate, parseHttpOptions, routeOverride, statusReport } from '@floodgate/core/http';
import type { RateLimitControls, StatusReport } from '@floodgate/core/http';
import { Denial } from '@floodgate/core/http';
import { nestDriver } from './driver';
import type { FloodgateModuleOptions, NestRequest, RateLimitOptions } from './options';
import { FLOODGATE_OPTIONS } from './tokens';

export type NestGate = Gate<NestRequest, NestRequest>;

/** How the guard treats one handler: not at all, or with this gate. */
export type RoutePlan = { skip: true } | { skip: false; gate: NestGate };

const FORM_KEYS = ['limit', 'window', 'limits'] as const;

/** Where the guard leaves on a request the gate that decided it, for the controls. */
const decidedBy = new WeakMap<object, NestGate>();

/**
 * The module's limiter, each route's gate, and the controls: `peek`, `reset`, `block`, `unblock`
 * for a request, keyed exactly as the guard keys it (its rules, its client address). They act on
 * the counters of the route that request was decided on (the module's, unless the route has its
 * own); a request the guard has not seen uses the module's.
 */
@Injectable()
export class FloodgateService implements OnApplicationShutdown {
  readonly #options: Record<string, unknown>;
  readonly #gate: NestGate;
  readonly #controls: RateLimitControls<NestRequest>;
  readonly #perRoute: boolean;
  readonly #gates: NestGate[] = [];
  /**
   * Each handler's plan, by controller class, then handler. Kept here rather than in a guard, so
   * that every guard (the app's and a subclass on a controller, say) decides a route with one gate:
   * a gate apiece counted each request once per guard.
   */
  readonly #plans = new WeakMap<object, Map<unknown, RoutePlan>>();

  constructor(@Inject(FLOODGATE_OPTIONS) options: FloodgateModuleOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new InvalidOptionTypeError(`FloodgateModule options must be an object, got ${String(options)}`);
    }
    const { perRoute, ...limits } = options;
    if (perRoute !== undefined && typeof perRoute !== 'boolean') {
      throw new InvalidOptionTypeError(`FloodgateModule.perRoute must be true or false, got ${String(perRoute)}`);
    }
    this.#options = limits;
    this.#perRoute = perRoute === true;
    this.#gate = new Gate(parseHttpOptions('FloodgateModule', limits), nestDriver);
    this.#gates.push(this.#gate);
    this.#controls = controlsOf(this.#gate);
  }

  /** The module's limiter: consume, refund, peek, reset, block, unblock, close. */
  get limiter(): RateLimitControls<NestRequest>['limiter'] {
    return this.#controls.limiter;
  }

  /** The Decision this request would get now on its route; charges nothing. */
  peek(req: NestRequest, options?: ConsumeOptions): Promise<Decision> {
    return this.#controlsFor(req).peek(req, options);
  }

  /** Clears this request's keys (every rule, or `{ rule }`): counts, blocks, penalty history. */
  reset(req: NestRequest, options?: RuleSelector): Promise<void> {
    return this.#controlsFor(req).reset(req, options);
  }

  /** Denies every request on this request's keys for `duration`, on every instance sharing the store. */
  block(req: NestRequest, duration: Duration, options?: RuleSelector): Promise<void> {
    return this.#controlsFor(req).block(req, duration, options);
  }

  /** Lifts a block and forgets the penalty history. */
  unblock(req: NestRequest, options?: RuleSelector): Promise<void> {
    return this.#controlsFor(req).unblock(req, options);
  }

  /**
   * The caller's standing under the module's own rules (scope `'client'`), as GitHub's
   * `/rate_limit` answers it, with the usual headers set on `res`; a Denial when the status
   * route's own budget (60 a minute per client address) is spent.
   */
  status(req: NestRequest, res: NestRequest): Promise<StatusReport | Denial> {
    return statusReport(this.#gate, req, res, undefined);
  }

  /** The gate a handler's requests go through, from its class's and its own metadata. */
  plan(routeId: string, own: RateLimitOptions | undefined, skipped: readonly string[]): RoutePlan {
    let options: Record<string, unknown> | undefined;
    let counters: 'own' | 'app' | 'app-rebuilt' = 'app';
    if (own !== undefined) {
      const override = routeOverride(`@RateLimit() of ${routeId}`, this.#options, own, routeId);
      options = override.options;
      counters = override.counters;
    } else if (this.#perRoute) {
      // The module's rules, counted for this route alone (as a route giving them again would).
      const form = Object.fromEntries(FORM_KEYS.map((key) => [key, this.#options[key]]));
      const override = routeOverride(`FloodgateModule (perRoute) for ${routeId}`, this.#options, form, routeId);
      options = override.options;
      counters = 'own';
    }
    if (skipped.length > 0) {
      const base = options ?? { ...this.#options };
      const rules = Array.isArray(base.limits) ? (base.limits as { name?: unknown }[]) : undefined;
      // The short form is one rule, named 'ip'.
      if (rules === undefined && skipped.includes('ip')) return { skip: true };
      const kept = rules?.filter((rule) => !skipped.includes(String(rule.name)));
      if (kept !== undefined && kept.length === 0) return { skip: true };
      if (kept !== undefined && rules !== undefined && kept.length < rules.length) {
        // The rules left count where they did: in the module's counters, or the route's own.
        base.limits = kept;
        options = base;
        if (counters === 'app') counters = 'app-rebuilt';
      }
    }
    if (options === undefined) return { skip: false, gate: this.#gate };
    const where = `@RateLimit() of ${routeId}`;
    const shared = counters === 'own' ? undefined : { engine: this.#gate.config.engine, reuse: counters === 'app' };
    const gate = new Gate(parseHttpOptions(where, options, [], shared), nestDriver);
    // A gate over the module's engine (reuse) has nothing of its own to close; the others may hold leases.
    if (counters !== 'app') this.#gates.push(gate);
    return { skip: false, gate };
  }

  /** The plan made for a handler already, if any. */
  planOf(controller: object, handler: unknown): RoutePlan | undefined {
    return this.#plans.get(controller)?.get(handler);
  }

  /** Keeps a handler's plan for every guard; returns it. */
  keepPlan(controller: object, handler: unknown, plan: RoutePlan): RoutePlan {
    let plans = this.#plans.get(controller);
    if (plans === undefined) {
      plans = new Map();
      this.#plans.set(controller, plans);
    }
    plans.set(handler, plan);
    return plan;
  }

  /** Records which gate decided a request, for the controls. */
  decided(req: NestRequest, gate: NestGate): void {
    if (gate !== this.#gate && typeof req === 'object' && req !== null) decidedBy.set(req, gate);
  }

  /** The status route's denial, answered as the guard answers one. */
  isDenial(value: unknown): value is Denial {
    return value instanceof Denial;
  }

  #controlsFor(req: NestRequest): RateLimitControls<NestRequest> {
    const gate = typeof req === 'object' && req !== null ? decidedBy.get(req) : undefined;
    return gate === undefined ? this.#controls : controlsOf(gate);
  }

  /** Leased units go back to the store when the app closes. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.#gates.map((gate) => gate.config.engine.close()));
  }
}
