import { metrics } from '@opentelemetry/api';
import type { Attributes, Meter } from '@opentelemetry/api';
import type { BreakerChange, Decision, LayerResult, StoreCallEvent, StoreErrorEvent } from '@floodgate/core';

const OUTCOMES = ['allowed', 'denied', 'shadow_denied', 'unavailable'] as const;
const BREAKER_STATE = { closed: 0, 'half-open': 1, open: 2 } as const;

/**
 * Floodgate's event hooks recording on an OpenTelemetry meter: the same events and counts as
 * prometheusHooks(), under OpenTelemetry's names. Attribute objects are made once per rule and
 * outcome, never per request.
 */
export function openTelemetryHooks(meter: Meter = metrics.getMeter('floodgate'), nearLimitShare = 0.2) {
  const decisions = meter.createCounter('floodgate.decisions', {
    description: 'Rate-limit verdicts, one per rule that applied to a request',
    unit: '{decision}',
  });
  const nearLimit = meter.createCounter('floodgate.near_limit', { unit: '{decision}' });
  const storeDuration = meter.createHistogram('floodgate.store.duration', {
    unit: 's',
    advice: {
      explicitBucketBoundaries: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    },
  });
  const storeErrors = meter.createCounter('floodgate.store.errors', { unit: '{error}' });
  const breakerState = meter.createGauge('floodgate.breaker.state', { description: '0 closed, 1 half-open, 2 open' });

  const byRule = new Map<string, { outcomes: Attributes[]; rule: Attributes }>();
  const attributesOf = (rule: string) => {
    const outcomes = OUTCOMES.flatMap((outcome) =>
      [false, true].map((degraded) => ({
        'floodgate.rule': rule,
        'floodgate.outcome': outcome,
        'floodgate.degraded': degraded,
      })),
    );
    const made = { outcomes, rule: { 'floodgate.rule': rule } };
    byRule.set(rule, made);
    return made;
  };
  const byOperation = new Map<string, Attributes[]>();
  const callAttributesOf = (operation: string) => {
    const made = [false, true].map((ok) => ({ 'floodgate.operation': operation, 'floodgate.ok': ok }));
    byOperation.set(operation, made);
    return made;
  };

  return {
    onDecision({ decision }: { decision: Decision }) {
      for (const layer of decision.results as (LayerResult & { shadow?: boolean })[]) {
        const attributes = byRule.get(layer.rule) ?? attributesOf(layer.rule);
        let outcome = 0;
        if (decision.unavailable === true) outcome = 3;
        else if (!layer.allowed) outcome = layer.shadow === true ? 2 : 1;
        decisions.add(1, attributes.outcomes[outcome * 2 + (decision.degraded ? 1 : 0)]);
        if (outcome === 0 && layer.remaining < nearLimitShare * layer.limit) nearLimit.add(1, attributes.rule);
      }
    },
    onStoreCall(event: StoreCallEvent) {
      const attributes = byOperation.get(event.operation) ?? callAttributesOf(event.operation);
      storeDuration.record(event.ms / 1000, attributes[event.ok ? 1 : 0]);
    },
    onStoreError({ error, operation }: StoreErrorEvent) {
      const code = (error as { code?: unknown } | null)?.code;
      storeErrors.add(1, {
        'floodgate.operation': operation,
        'error.type': typeof code === 'string' ? code : 'unknown',
      });
    },
    onBreakerChange(change: BreakerChange) {
      breakerState.record(BREAKER_STATE[change.to], { 'floodgate.partition': change.partition ?? '' });
    },
  };
}
