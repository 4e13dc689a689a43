import { isThenable } from '../thenable';
import type { BreakerChange } from './breaker';
import type { DecisionEvent, LimiterEvents, StoreErrorEvent } from './options';

/** The hooks, each wrapped so that nothing it does can reach the request. */
export interface SafeEvents {
  /** False when neither onDecision nor onLimited is set: the caller can skip building the event. */
  readonly wantsDecisions: boolean;
  decision(event: DecisionEvent): void;
  storeError(event: StoreErrorEvent): void;
  breakerChange(change: BreakerChange): void;
}

/**
 * Wraps the user's hooks: a throw is caught, a returned promise that rejects is caught, and the
 * first failure of each hook is reported once with console.warn (never once per request).
 * `decision` calls onDecision, then onLimited for a denied request.
 */
export function safeEvents(hooks: LimiterEvents): SafeEvents {
  const warned = new Set<string>();
  const report = (name: keyof LimiterEvents, error: unknown) => {
    if (warned.has(name)) return;
    warned.add(name);
    console.warn(`[floodgate] the ${name} hook failed; further failures of it are ignored silently:`, error);
  };
  const call = <E>(name: keyof LimiterEvents, event: E) => {
    const hook = hooks[name] as ((event: E) => unknown) | undefined;
    if (hook === undefined) return;
    try {
      const result = hook(event);
      if (isThenable(result)) result.then(undefined, (error: unknown) => report(name, error));
    } catch (error) {
      report(name, error);
    }
  };
  return {
    wantsDecisions: hooks.onDecision !== undefined || hooks.onLimited !== undefined,
    decision(event) {
      call('onDecision', event);
      if (!event.decision.allowed) call('onLimited', event);
    },
    storeError: (event) => call('onStoreError', event),
    breakerChange: (change) => call('onBreakerChange', change),
  };
}
