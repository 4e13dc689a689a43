import { MAX_TIMER_MS } from '../duration';
import { renderDenial, renderHeaders } from './render';
import { checkTrust, WarningCode } from './warnings';
import { waitUnlessAborted } from './wait';
import type { Decision } from '../decision';
import type { KeyContext } from '../keys/context';
import type { HttpConfig } from './options';
import type { RateLimitInfo } from './types';
import type { ProxyTrust } from './warnings';

/** What an adapter tells the gate about one request. */
export interface HttpExchange<Req, Res> {
  /** What user functions receive: Express `req`, Fastify `request`, Hono `c`. */
  req: Req;
  /** Handed to `requestWasSuccessful`: Express `res`, Fastify `reply`, Hono `c`. */
  res: Res;
  /** The client address as the framework's trusted-proxy logic resolved it. */
  ip: string | undefined;
  header(name: string): string | undefined;
  /** How far the app trusts proxies, and the setting's name for warnings (`app.set('trust proxy')`). */
  trust: ProxyTrust;
  trustHint: string;
  /** Aborts when the client goes away; ends a shaping wait early. */
  signal?: AbortSignal;
}

/** What the adapter does next. */
export type Verdict =
  /**
   * Set `headers`, expose `info`, run the handler, and call `finish` once when the response has
   * finished (its status) or the client went away (undefined). Calling it again does nothing.
   */
  | { action: 'next'; headers: Record<string, string>; info: RateLimitInfo | undefined; finish(status?: number): void }
  /** Answer `status` with `headers`; `body` is undefined when the user's `handler` answers instead. */
  | {
      action: 'deny';
      status: number;
      headers: Record<string, string>;
      decision: Decision;
      body?: { contentType: string; text: string };
    }
  /** The client left during the shaping wait; its units were given back. Do nothing more. */
  | { action: 'aborted' };

const PASS: Verdict = { action: 'next', headers: {}, info: undefined, finish: () => {} };

/**
 * The request-handling plan shared by every adapter: skip/allowList, trust warnings, cost,
 * consume, deny or wait (shaping), then the after-response work (release, outcome refunds).
 * It never throws: failures follow `failMode` and go to `onStoreError`.
 */
export function createGate<Req, Res, Handler>(config: HttpConfig<Req, Res, Handler>) {
  // Requests this gate has let through, with what it told them: the same middleware mounted twice
  // (on the app and on a router) must count a request once.
  const admitted = new WeakMap<object, RateLimitInfo>();
  const report = (error: unknown, operation: 'consume' | 'refund' = 'refund') => {
    try {
      Promise.resolve(config.onStoreError?.({ error, operation })).catch(() => {});
    } catch {
      // A throwing hook must not turn a limiter failure into a failed request.
    }
  };

  const refund = (ctx: KeyContext<Req>, cost: number) =>
    cost > 0 ? config.limiter.refund(ctx, { cost }).catch(report) : Promise.resolve();

  const undo = async (ctx: KeyContext<Req>, cost: number, decision: Decision) => {
    await Promise.all([decision.release?.().catch(report), refund(ctx, cost)]);
  };

  const allow = (ex: HttpExchange<Req, Res>, ctx: KeyContext<Req>, cost: number, decision: Decision): Verdict => {
    let finished = false;
    const info: RateLimitInfo = { ...decision, cost, refund: (n = cost) => refund(ctx, n) };
    if (typeof ex.req === 'object' && ex.req !== null) admitted.set(ex.req, info);
    const finish = (status?: number) => {
      if (finished) return;
      finished = true;
      decision.release?.().catch(report);
      if (config.refundWhen === undefined) return;
      const refundWhen = config.refundWhen;
      Promise.resolve()
        .then(() => config.requestWasSuccessful?.(ex.req, ex.res, status) ?? false)
        .then((success) => (refundWhen(success) ? refund(ctx, cost) : undefined))
        .catch(report);
    };
    return { action: 'next', headers: renderHeaders(config, decision), info, finish };
  };

  const deny = async (ex: HttpExchange<Req, Res>, decision: Decision): Promise<Verdict> => {
    const denial = await renderDenial(config, ex.req, ex.header('accept'), decision);
    return { action: 'deny', decision, ...denial };
  };

  const settle = async (ex: HttpExchange<Req, Res>, ctx: KeyContext<Req>, cost: number, decision: Decision) => {
    if (!decision.allowed) return deny(ex, decision);
    if (decision.delay > 0) {
      // Without maxDelay the wait is still capped at what a timer can count: longer would fire at once.
      const maxDelay = config.maxDelay ?? MAX_TIMER_MS;
      if (decision.delay > maxDelay) {
        await undo(ctx, cost, decision);
        return deny(ex, { ...decision, allowed: false, retryAfter: decision.delay - maxDelay, delay: 0 });
      }
      if (!(await waitUnlessAborted(decision.delay, ex.signal))) {
        await undo(ctx, cost, decision);
        return { action: 'aborted' } as const;
      }
    }
    return allow(ex, ctx, cost, decision);
  };

  return async function check(ex: HttpExchange<Req, Res>): Promise<Verdict> {
    try {
      const earlier = typeof ex.req === 'object' && ex.req !== null ? admitted.get(ex.req) : undefined;
      if (earlier !== undefined) {
        config.warn(
          WarningCode.doubleCount,
          'the same middleware instance ran twice for one request (mounted on both the app and a router?); it counts the request once and lets the second run through',
        );
        return { action: 'next', headers: {}, info: earlier, finish: () => {} };
      }
      if (config.skip && (await config.skip(ex.req))) return PASS;
      if (config.allowed && (await config.allowed(ex.req, ex.ip))) return PASS;
      checkTrust(config.warn, ex.trust, ex.header('x-forwarded-for'), ex.ip, ex.trustHint);
      const ctx: KeyContext<Req> = { ip: ex.ip, header: ex.header, req: ex.req };
      const cost = config.cost ? await config.cost(ex.req) : 1;
      const decision = await config.limiter.consume(ctx, { cost });
      return await settle(ex, ctx, cost, decision);
    } catch (error) {
      report(error, 'consume');
      if (config.failMode !== 'closed') return PASS;
      return deny(ex, unavailableDecision(config.clock()));
    }
  };
}

/** The decision behind a 503 when the limiter could not decide and failMode is 'closed'. */
function unavailableDecision(now: number): Decision {
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
    unavailable: true,
  };
}
