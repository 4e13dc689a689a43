import { checkRefund } from './algorithms/cost';
import { timerOption } from './duration';
import { LimiterEngine } from './engine';
import { parseLimiterOptions } from './limiter-options';
import { priorityOption } from './validate';
import type { ConsumeOptions, Limiter, LimiterOptions, Priority } from './limiter-types';
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
 * charged, at most what that consume charged; for a ctx it has not seen, the keys ctx maps to now.
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
      await engine.refund(await engine.resolve(ctx, cost), cost);
    },
    peek: async (ctx, peekOptions = {}) => engine.peek(ctx, peekOptions.cost ?? 1, priorityOf('peek', peekOptions)),
    reset: (ctx, selector = {}) => engine.control('reset', ctx, selector.rule),
    async block(ctx, duration, selector = {}) {
      await engine.control('block', ctx, selector.rule, timerOption('block.duration', duration));
    },
    unblock: (ctx, selector = {}) => engine.control('unblock', ctx, selector.rule),
    close: () => engine.close(),
  };
}

function priorityOf(where: string, options: ConsumeOptions): Priority | undefined {
  return options.priority === undefined ? undefined : priorityOption(`${where}.priority`, options.priority);
}
