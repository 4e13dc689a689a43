import { AdaptiveController } from './controller';
import { Gradient2 } from './gradient2';
import { parseAdaptiveOptions } from './options';
import { Vegas } from './vegas';
import type { Priority, PriorityFunction } from '../limiter/types';
import type { AdaptiveSlot, AdaptiveSnapshot } from './controller';
import type { Estimator } from './estimator';
import type { AdaptiveConcurrencyOptions, AdaptiveConfig } from './options';

/**
 * A per-process layer whose in-flight limit follows the latency of completed requests (Vegas or
 * Gradient2). Put it in a middleware's `limits`, alone or before rate-limit rules: a request it
 * sheds gets 503 with Retry-After and is never charged by the other layers.
 */
export class AdaptiveConcurrency<Req = unknown> {
  readonly kind = 'adaptiveConcurrency';
  readonly name: string;
  /** Retry-After of a shed request, ms. */
  readonly retryAfter: number;
  /** Its own priority function, if one was given (else the middleware's applies). */
  readonly priority: PriorityFunction<Req> | undefined;
  readonly controller: AdaptiveController;

  constructor(config: AdaptiveConfig) {
    this.name = config.name;
    this.retryAfter = config.retryAfter;
    this.priority = config.priority as PriorityFunction<Req> | undefined;
    this.controller = new AdaptiveController({
      estimator: estimatorFor(config),
      reserve: config.reserve,
      now: config.now,
      onChange: config.onLimitChange,
      window: config.window,
      minLimit: config.minLimit,
      probeInterval: config.probeInterval,
      random: config.random,
    });
  }

  /** A slot for a request of this priority, or undefined when it is shed. */
  acquire(priority: Priority | undefined): AdaptiveSlot | undefined {
    return this.controller.acquire(priority === 'critical');
  }

  /** The current limit, in-flight count, RTT estimates and shed counts. */
  snapshot(): AdaptiveSnapshot {
    return this.controller.snapshot();
  }
}

function estimatorFor(config: AdaptiveConfig): Estimator {
  return config.algorithm === 'vegas' ? new Vegas(config) : new Gradient2(config);
}

/**
 * Sheds load by measured latency instead of a hand-set number: the process admits requests while
 * its in-flight count is under a limit that grows while latency stays near its baseline and
 * shrinks when requests start to queue. Per process: each instance measures itself. Options are
 * validated here, once.
 *
 * @example
 * app.use(rateLimit({ limits: [adaptiveConcurrency(), { name: 'ip', key: byIp(), algorithm: slidingWindow({ limit: 300, window: '1m' }) }] }));
 */
export function adaptiveConcurrency<Req = unknown>(
  options: AdaptiveConcurrencyOptions<Req> = {},
): AdaptiveConcurrency<Req> {
  return new AdaptiveConcurrency<Req>(parseAdaptiveOptions(options));
}

/** True for a layer made by adaptiveConcurrency() (also from another loaded copy of core). */
export function isAdaptiveLayer(value: unknown): value is AdaptiveConcurrency<unknown> {
  return (
    value instanceof AdaptiveConcurrency ||
    (typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'adaptiveConcurrency')
  );
}
