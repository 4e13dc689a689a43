import type { Decision, LayerResult } from '@floodgate/core';
import type { FloodgateMetrics } from './metrics';

/** Shadow mode's mark, read when present and false when absent: the layer belongs to a rule that is never enforced. */
type ShadowLayer = LayerResult & { shadow?: boolean | undefined };

/** The `outcome` label's values, in the order of the indexes below. */
export const OUTCOMES = ['allowed', 'denied', 'shadow_denied', 'unavailable'] as const;
const ALLOWED = 0;
const DENIED = 1;
const SHADOW_DENIED = 2;
const UNAVAILABLE = 3;
const DEGRADED = ['false', 'true'] as const;

interface Inc {
  inc(value?: number): void;
}

/** One rule's children, made once: `decisions[outcome * 2 + degraded]`. */
interface RuleSeries {
  readonly decisions: readonly Inc[];
  readonly nearLimit: Inc;
}

/**
 * The onDecision hook: one verdict per layer, counted on children made the first time a rule is
 * seen (rule names come from the limiter's configuration, so they are few). Per request it does a
 * Map lookup and prom-client's inc() per layer, and builds no string.
 */
export function decisionHook(metrics: FloodgateMetrics, nearLimitShare: number) {
  const rules = new Map<string, RuleSeries>();

  const seriesOf = (rule: string): RuleSeries => {
    const decisions: Inc[] = [];
    for (const outcome of OUTCOMES) {
      for (const degraded of DEGRADED) {
        const child = metrics.decisions.labels({ rule, outcome, degraded });
        // Every outcome of a known rule shows up at 0, so a rate over it is defined before the first denial.
        child.inc(0);
        decisions.push(child);
      }
    }
    const nearLimit = metrics.nearLimit.labels({ rule });
    nearLimit.inc(0);
    const series = { decisions, nearLimit };
    rules.set(rule, series);
    return series;
  };

  return function onDecision(event: { decision: Decision }): void {
    const decision = event.decision;
    const results = decision.results;
    const degraded = decision.degraded ? 1 : 0;
    const unavailable = decision.unavailable === true;
    for (let i = 0; i < results.length; i++) {
      const layer = results[i] as ShadowLayer;
      const series = rules.get(layer.rule) ?? seriesOf(layer.rule);
      // failMode 'closed' refuses every layer alike: that is the store's absence, not a rule's verdict.
      let outcome = ALLOWED;
      if (unavailable) outcome = UNAVAILABLE;
      else if (!layer.allowed) outcome = layer.shadow === true ? SHADOW_DENIED : DENIED;
      (series.decisions[outcome * 2 + degraded] as Inc).inc();
      if (outcome === ALLOWED && layer.remaining < nearLimitShare * layer.limit) series.nearLimit.inc();
    }
  };
}
