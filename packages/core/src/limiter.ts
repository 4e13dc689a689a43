import { timerOption } from './duration';
import { LimiterEngine } from './engine';
import { InvalidOptionTypeError, show } from './errors';
import { parseLimiterOptions } from './limiter-options';
import { rejectUnknownKeys } from './validate';
import type { Limiter, LimiterOptions } from './limiter-types';
import type { LayerCall } from './store';

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

/** The public face of an engine. A refund(ctx) after consume(ctx) gives back on the keys that were charged. */
export function limiterOf<Req>(engine: LimiterEngine<Req>): Limiter<Req> {
  const charged = new WeakMap<object, readonly LayerCall[]>();
  return {
    prefix: engine.prefix,
    store: engine.store,
    async consume(ctx, consumeOptions = {}) {
      const decision = await engine.decide(ctx, consumeOptions.cost ?? 1);
      if (typeof ctx === 'object' && ctx !== null) charged.set(ctx, decision.calls);
      return decision;
    },
    async refund(ctx, refundOptions = {}) {
      const cost = refundOptions.cost ?? 1;
      const calls = charged.get(ctx) ?? (await engine.resolve(ctx, cost));
      await engine.refund(calls, cost);
    },
    peek: (ctx, peekOptions = {}) => engine.peek(ctx, peekOptions.cost ?? 1),
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
