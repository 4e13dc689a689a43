import { adaptiveConcurrency } from '@floodgate/core';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { adaptiveMetrics } from '../src/index';
import { seriesOf } from './support';

describe('adaptiveMetrics', () => {
  it('reports the limit, in-flight count, RTT estimates and sheds of each layer at scrape time', async () => {
    const registry = new Registry();
    let now = 0;
    const layer = adaptiveConcurrency({
      name: 'api',
      initialLimit: 2,
      minLimit: 1,
      maxLimit: 2,
      window: 1,
      clock: () => now,
    });
    adaptiveMetrics(layer, { registry });
    const first = layer.acquire('normal');
    layer.acquire('normal');
    layer.acquire('normal');
    layer.acquire('critical');
    now = 40;
    first?.release(true);
    expect(await seriesOf(registry, 'floodgate_adaptive_limit')).toEqual({ 'layer=api': 2 });
    expect(await seriesOf(registry, 'floodgate_adaptive_in_flight')).toEqual({ 'layer=api': 1 });
    expect(await seriesOf(registry, 'floodgate_adaptive_rtt_seconds')).toEqual({
      'estimate=baseline,layer=api': 0.04,
      'estimate=recent,layer=api': 0.04,
    });
    expect(await seriesOf(registry, 'floodgate_adaptive_shed_total')).toEqual({
      'layer=api,priority=normal': 1,
      'layer=api,priority=critical': 1,
    });
    layer.acquire('normal');
    layer.acquire('normal');
    // A counter: a second scrape adds only what happened since the first.
    expect(await seriesOf(registry, 'floodgate_adaptive_shed_total')).toEqual({
      'layer=api,priority=normal': 2,
      'layer=api,priority=critical': 1,
    });
  });

  it('two layers share one registry, each under its own label', async () => {
    const registry = new Registry();
    adaptiveMetrics(adaptiveConcurrency({ name: 'a', initialLimit: 7 }), { registry, prefix: 'app_' });
    adaptiveMetrics(adaptiveConcurrency({ name: 'b', initialLimit: 9 }), { registry, prefix: 'app_' });
    expect(await seriesOf(registry, 'app_adaptive_limit')).toEqual({ 'layer=a': 7, 'layer=b': 9 });
  });

  it('refuses what is not a layer, and bad options, with coded errors', () => {
    expect(() => adaptiveMetrics({} as never)).toThrow(/adaptiveMetrics needs a layer made by adaptiveConcurrency\(\)/);
    expect(() => adaptiveMetrics(adaptiveConcurrency(), { prefix: '1x' })).toThrow(
      expect.objectContaining({
        code: 'ERR_FLOODGATE_INVALID_OPTION',
        message: expect.stringMatching(/adaptiveMetrics\.prefix/),
      }),
    );
    expect(() => adaptiveMetrics(adaptiveConcurrency(), { buckets: [1] } as never)).toThrow(
      /adaptiveMetrics: unknown option "buckets"/,
    );
  });
});
