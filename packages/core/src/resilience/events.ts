import { isThenable } from '../base/thenable';
import { WarningCode } from '../base/warnings';
import type { Warn } from '../base/warnings';
import type { BreakerChange } from './breaker';
import type { DecisionEvent, LimiterEvents, StoreCallEvent, StoreErrorEvent } from './options';

/** The hooks, each wrapped so that nothing it does can reach the request. */
export interface SafeEvents {
  /** False when neither onDecision nor onLimited is set: the caller can skip building the event. */
  readonly wantsDecisions: boolean;
  decision(event: DecisionEvent): void;
  storeError(event: StoreErrorEvent): void;
  breakerChange(change: BreakerChange): void;
  /** False when onStoreCall is not set: the caller can skip timing the call. */
  readonly wantsStoreCalls: boolean;
  storeCall(event: StoreCallEvent): void;
}

/**
 * Wraps the user's hooks: a throw is caught, a returned promise that rejects is caught, and the
 * first failure of each hook is reported once through the warnings (WARN_FLOODGATE_HOOK_FAILED),
 * never once per request. `decision` calls onDecision, then onLimited for a denied request or a
 * shadow denial.
 */
export function safeEvents(hooks: LimiterEvents, warn: Warn): SafeEvents {
  const report = (name: keyof LimiterEvents, error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    warn(WarningCode.hookFailed, `the ${name} hook failed (${reason}); its further failures are not reported`, name);
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
      // A shadow denial is reported as a limit too (decision.allowed tells the two apart).
      if (!event.decision.allowed || event.decision.shadowDenied) call('onLimited', event);
    },
    storeError: (event) => call('onStoreError', event),
    breakerChange: (change) => call('onBreakerChange', change),
    wantsStoreCalls: hooks.onStoreCall !== undefined,
    storeCall: (event) => call('onStoreCall', event),
  };
}
