import { Counter, Registry, register } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BUCKETS, prometheusHooks } from '../src/index';

const names = (registry: Registry) => registry.getMetricsAsArray().map((metric) => metric.name);

describe('prometheusHooks options', () => {
  afterEach(() => register.clear());

  it("registers five metrics under 'floodgate_' in prom-client's global registry by default", () => {
    prometheusHooks();
    expect(names(register).sort()).toEqual([
      'floodgate_breaker_state',
      'floodgate_decisions_total',
      'floodgate_near_limit_total',
      'floodgate_store_call_duration_seconds',
      'floodgate_store_errors_total',
    ]);
    const histogram = register.getSingleMetric('floodgate_store_call_duration_seconds') as unknown as {
      upperBounds: number[];
    };
    expect(histogram.upperBounds).toEqual(DEFAULT_BUCKETS);
  });

  it('takes a registry and a prefix, and leaves the options object as it was', () => {
    const registry = new Registry();
    const options = Object.freeze({ registry, prefix: 'api_limits_' });
    prometheusHooks(options);
    expect(names(registry)).toContain('api_limits_decisions_total');
    expect(names(register)).toEqual([]);
    prometheusHooks({ registry: new Registry(), prefix: '' });
  });

  it('shares the metrics of an earlier call with the same registry and prefix', () => {
    const registry = new Registry();
    const first = prometheusHooks({ registry });
    const second = prometheusHooks({ registry });
    first.onStoreCall({ operation: 'consume', ms: 1, ok: true });
    second.onStoreCall({ operation: 'consume', ms: 1, ok: true });
    expect(names(registry)).toHaveLength(5);
  });

  it('refuses a registry that holds another metric under one of the names', () => {
    const registry = new Registry();
    new Counter({ name: 'floodgate_decisions_total', help: 'not ours', registers: [registry] });
    expect(() => prometheusHooks({ registry })).toThrow(
      expect.objectContaining({
        code: 'ERR_FLOODGATE_INVALID_OPTION',
        message: expect.stringContaining('floodgate_decisions_total'),
      }),
    );
    const again = new Registry();
    prometheusHooks({ registry: again, buckets: [0.01, 0.1] });
    expect(() => prometheusHooks({ registry: again, buckets: [0.01, 1] })).toThrow(/another shape/);
  });

  it.each([
    [{ prefix: 'floodgate-' }, 'prometheusHooks.prefix must be empty or start a Prometheus metric name'],
    [{ prefix: 3 }, 'prometheusHooks.prefix must be empty'],
    [{ prefix: '1abc_' }, 'got "1abc_"'],
    [{ nearLimitShare: 0 }, 'prometheusHooks.nearLimitShare must be a number in (0, 1], got 0'],
    [{ nearLimitShare: 1.5 }, 'got 1.5'],
    [{ nearLimitShare: Number.NaN }, 'got NaN'],
    [{ nearLimitShare: '0.2' }, 'got "0.2"'],
    [{ buckets: [] }, 'prometheusHooks.buckets must be a non-empty array of seconds'],
    [{ buckets: [0.1, 0.01] }, 'prometheusHooks.buckets[1] must be a finite number of seconds above 0.1, got 0.01'],
    [{ buckets: [0, 1] }, 'buckets[0] must be a finite number of seconds above 0, got 0'],
    [{ buckets: [1, Number.POSITIVE_INFINITY] }, 'got Infinity'],
    [{ registry: {} }, 'prometheusHooks.registry must be a prom-client Registry, got an object'],
    [{ prefx: 'x_' }, 'prometheusHooks: unknown option "prefx"'],
  ])('rejects %o', (options, message) => {
    expect(() => prometheusHooks(options as never)).toThrow(
      expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION', message: expect.stringContaining(message) }),
    );
  });

  it('rejects options that are not an object', () => {
    expect(() => prometheusHooks(null as never)).toThrow(/prometheusHooks: options must be an object, got null/);
  });
});
