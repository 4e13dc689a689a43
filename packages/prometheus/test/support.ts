import type { Decision, KeyContext, LayerResult } from '@floodgate/core';
import type { Registry } from 'prom-client';

/** The value of one series, 0 when the registry has none with exactly these labels. */
export async function sampleOf(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric named ${name}`);
  const { values } = await metric.get();
  const wanted = Object.entries(labels);
  const match = values.find(
    (value) =>
      Object.keys(value.labels).length === wanted.length &&
      wanted.every(([label, expected]) => String(value.labels[label]) === expected),
  );
  return match?.value ?? 0;
}

/** Every series of a metric as `labels → value`, labels written `a=x,b=y` in name order. */
export async function seriesOf(registry: Registry, name: string): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric named ${name}`);
  const { values } = await metric.get();
  const series: Record<string, number> = {};
  for (const value of values) {
    const labels = Object.entries(value.labels)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([label, text]) => `${label}=${text}`)
      .join(',');
    series[labels] = value.value;
  }
  return series;
}

export const ctx = (ip: string): KeyContext => ({ ip, header: () => undefined, req: {} });

/** One layer's numbers, for decisions a MemoryStore limiter does not make (an outage, shadow rules). */
export function layer(rule: string, allowed: boolean, remaining: number, extra: Record<string, unknown> = {}) {
  return {
    rule,
    kind: 'fixedWindow',
    allowed,
    limit: 10,
    remaining,
    resetAt: 0,
    window: 60_000,
    retryAfter: allowed ? 0 : 1000,
    delay: 0,
    ...extra,
  } as LayerResult;
}

const isShadow = (result: LayerResult) => (result as { shadow?: boolean }).shadow === true;

/** A Decision over `results` as a limiter folds them (shadow layers never refuse), with `flags` on top. */
export function decisionOf(results: LayerResult[], flags: Partial<Decision> = {}) {
  const binding = results.find((result) => !isShadow(result));
  return {
    allowed: results.every((result) => result.allowed || isShadow(result)),
    shadowDenied: results.some((result) => !result.allowed && isShadow(result)),
    limit: binding?.limit ?? 0,
    remaining: binding?.remaining ?? 0,
    resetAt: 0,
    retryAfter: 0,
    delay: 0,
    rule: binding?.rule,
    results,
    degraded: false,
    ...flags,
  } as Decision;
}
