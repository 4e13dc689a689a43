import { readFileSync } from 'node:fs';
import { createLimiter, fixedWindow, StoreTimeoutError } from '@floodgate/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { openTelemetryHooks } from '../examples/opentelemetry';
import { ctx } from './support';

/** A reader collected by hand, as an exporter would on its interval. */
class ManualReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

async function points(reader: MetricReader): Promise<Map<string, DataPoint<unknown>[]>> {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  const found = new Map<string, DataPoint<unknown>[]>();
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) found.set(metric.descriptor.name, metric.dataPoints);
  }
  return found;
}

describe("the README's OpenTelemetry example", () => {
  it('is the file this test runs', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const example = readFileSync(new URL('../examples/opentelemetry.ts', import.meta.url), 'utf8');
    expect(readme).toContain(example.trim());
  });

  it('records the same counts on a real meter', async () => {
    const reader = new ManualReader();
    const provider = new MeterProvider({ readers: [reader] });
    const hooks = openTelemetryHooks(provider.getMeter('floodgate-test'));
    const limiter = createLimiter({
      clock: () => 60_000,
      limits: [{ name: 'ip', key: (c) => c.ip, algorithm: fixedWindow({ limit: 7, window: '1m' }) }],
      ...hooks,
    });
    for (let i = 0; i < 10; i++) await limiter.consume(ctx('203.0.113.1'));
    hooks.onStoreCall({ operation: 'consume', ms: 3, ok: true });
    hooks.onStoreError({ error: new StoreTimeoutError(100), operation: 'consume' });
    hooks.onBreakerChange({ from: 'closed', to: 'open', at: 1 });

    const found = await points(reader);
    const decisions = (found.get('floodgate.decisions') ?? []).map((point) => [point.attributes, point.value]);
    expect(decisions).toEqual(
      expect.arrayContaining([
        [{ 'floodgate.rule': 'ip', 'floodgate.outcome': 'allowed', 'floodgate.degraded': false }, 7],
        [{ 'floodgate.rule': 'ip', 'floodgate.outcome': 'denied', 'floodgate.degraded': false }, 3],
      ]),
    );
    expect(decisions).toHaveLength(2);
    // remaining 1 and 0 are under 20 % of 7.
    expect(found.get('floodgate.near_limit')?.[0]?.value).toBe(2);
    const duration = found.get('floodgate.store.duration')?.[0] as DataPoint<Histogram>;
    expect([duration.value.count, duration.value.sum]).toEqual([1, 0.003]);
    expect(found.get('floodgate.store.errors')?.[0]).toMatchObject({
      attributes: { 'floodgate.operation': 'consume', 'error.type': 'ERR_FLOODGATE_STORE_TIMEOUT' },
      value: 1,
    });
    expect(found.get('floodgate.breaker.state')?.[0]).toMatchObject({
      attributes: { 'floodgate.partition': '' },
      value: 2,
    });
    await provider.shutdown();
  });
});
