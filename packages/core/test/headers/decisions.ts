import type { Decision, LayerResult } from '@floodgate/core';

export const NOW = 1_700_000_000_250;

/** One layer's numbers, allowed unless told otherwise. */
export function layer(overrides: Partial<LayerResult> & Pick<LayerResult, 'rule'>): LayerResult {
  return {
    kind: 'fixedWindow',
    allowed: true,
    limit: 100,
    remaining: 99,
    resetAt: NOW + 30_500,
    window: 60_000,
    retryAfter: 0,
    delay: 0,
    shadow: false,
    ...overrides,
  };
}

/** A decision over the given layers, with `rule` as the binding one. */
export function decision(
  rule: string | undefined,
  results: LayerResult[],
  overrides: Partial<Decision> = {},
): Decision {
  const binding = results.find((result) => result.rule === rule);
  const allowed = results.every((result) => result.allowed);
  return {
    allowed,
    limit: binding?.limit ?? 0,
    remaining: binding?.remaining ?? 0,
    resetAt: binding?.resetAt ?? 0,
    retryAfter: allowed ? 0 : Math.max(...results.map((result) => result.retryAfter)),
    delay: 0,
    rule,
    results,
    degraded: false,
    shadowDenied: false,
    ...overrides,
  };
}
