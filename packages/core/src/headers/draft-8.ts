import type { Quota } from './quota';

/**
 * draft-ietf-httpapi-ratelimit-headers-08 and later: Structured Field lists with one item per
 * layer, binding layer first. Rule names are limited to `[A-Za-z0-9._-]`, so they need no escaping
 * inside sf-strings. Concurrency layers count in-flight requests, which the draft names with `qu`.
 */
export function draft8Headers(quotas: readonly Quota[]): Record<string, string> {
  const policies = quotas.map((quota) => `"${quota.name}";q=${quota.limit};w=${quota.window}${unitOf(quota)}`);
  const states = quotas.map((quota) => `"${quota.name}";r=${quota.remaining};t=${quota.reset}`);
  return { 'RateLimit-Policy': policies.join(', '), RateLimit: states.join(', ') };
}

function unitOf(quota: Quota): string {
  return quota.kind === 'concurrency' ? ';qu="concurrent-requests"' : '';
}
