import { checkRefund } from '../algorithms/cost';
import { timerOption } from '../base/duration';
import { LimiterEngine } from './engine';
import { InvalidOptionTypeError, show } from '../base/errors';
import { parseLimiterOptions } from './options';
import { priorityOption, rejectUnknownKeys } from '../base/validate';
import type { ConsumeOptions, Limiter, LimiterOptions, Priority } from './types';
import type { LimiterDecision } from './limiter-decision';

/**
 * Builds a limiter from layered rules.
 *
 * @example
 * const limiter = createLimiter({
 *   limits: [{ name: 'ip', key: byIp(), algorithm: slidingWindow({ limit: 100, window: '1m' }) }],
 * });
 * const decision = await limiter.consume({ ip: '203.0.113.7', header: () => undefined, req: {} });
 */
export function createLimiter<Req = unknown>(options: LimiterOptions<Req>): Limiter<Req> {
  const config = parseLimiterOptions(options);
  return limiterOf(new LimiterEngine(config));
}

/**
 * The public face of an engine. A refund(ctx) after consume(ctx) gives back on the keys that were
 * charged, at most what that consume charged; for a ctx it has not seen, the keys of its own that
 * ctx maps to now (its client-scope rules), never a key other clients share.
 */
export function limiterOf<Req>(engine: LimiterEngine<Req>): Limiter<Req> {
  const charged = new WeakMap<object, LimiterDecision>();
  return {
    prefix: engine.prefix,
    store: engine.store,
    async consume(ctx, consumeOptions = {}) {
      const decision = await engine.decide(ctx, consumeOptions.cost ?? 1, priorityOf('consume', consumeOptions));
      if (typeof ctx === 'object' && ctx !== null) charged.set(ctx, decision);
      return decision;
    },
    async refund(ctx, refundOptions = {}) {
      const cost = refundOptions.cost ?? 1;
      const decision = charged.get(ctx);
      if (decision !== undefined) {
        const units = decision.claimRefund(cost);
        if (units > 0) await engine.refund(decision.chargedCalls, units);
        return;
      }
      checkRefund(cost);
      // Nothing says what this ctx was charged: only its own keys, never one other clients share.
      await engine.refund(await engine.ownCalls(ctx), cost);
    },
    peek: async (ctx, peekOptions = {}) => engine.peek(ctx, peekOptions.cost ?? 1, priorityOf('peek', peekOptions)),
    reset: async (ctx, selector) => engine.control('reset', ctx, ruleOf('reset', selector)),
    async block(ctx, duration, selector) {
      const rule = ruleOf('block', selector);
      await engine.control('block', ctx, rule, timerOption('block.duration', duration));
    },
    unblock: async (ctx, selector) => engine.control('unblock', ctx, ruleOf('unblock', selector)),
    close: () => engine.close(),
  };
}

/**
 * The rule a control's selector names, or undefined for the request's own keys. Anything but
 * `{ rule?: string }` throws: `reset(ctx, 'user')` must not quietly reset every layer.
 */
function ruleOf(operation: string, selector: unknown): string | undefined {
  if (selector === undefined) return undefined;
  if (typeof selector !== 'object' || selector === null || Array.isArray(selector)) {
    const hint = typeof selector === 'string' ? ` (to name a rule, write { rule: ${show(selector)} })` : '';
    throw new InvalidOptionTypeError(
      `${operation}: the selector must be an object { rule }, got ${show(selector)}${hint}`,
    );
  }
  rejectUnknownKeys(operation, selector, ['rule']);
  const rule = (selector as { rule?: unknown }).rule;
  if (rule === undefined || typeof rule === 'string') return rule;
  throw new InvalidOptionTypeError(
    `${operation}.rule must be the name of one of the limiter's rules, got ${show(rule)}`,
  );
}

function priorityOf(where: string, options: ConsumeOptions): Priority | undefined {
  return options.priority === undefined ? undefined : priorityOption(`${where}.priority`, options.priority);
}
