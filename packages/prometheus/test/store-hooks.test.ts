import { StoreError, StoreTimeoutError } from '@floodgate/core';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { prometheusHooks } from '../src/index';
import { MAX_CODES } from '../src/store-hooks';
import { seriesOf, sampleOf } from './support';

describe('store_call_duration_seconds', () => {
  it('observes each call in seconds, by operation and outcome', async () => {
    const registry = new Registry();
    const { onStoreCall } = prometheusHooks({ registry, buckets: [0.001, 0.01, 0.1] });
    onStoreCall({ operation: 'consume', ms: 0.4, ok: true });
    onStoreCall({ operation: 'consume', ms: 7, ok: true });
    onStoreCall({ operation: 'consume', ms: 100, ok: false });
    onStoreCall({ operation: 'refund', ms: 2, ok: true });
    const name = 'floodgate_store_call_duration_seconds';
    const consumeOk = { operation: 'consume', outcome: 'ok' };
    expect(await sampleOf(registry, `${name}`, { ...consumeOk, le: '0.001' })).toBe(1);
    expect(await sampleOf(registry, name, { ...consumeOk, le: '0.01' })).toBe(2);
    const text = await registry.metrics();
    expect(text).toContain(`${name}_count{operation="consume",outcome="ok"} 2`);
    expect(text).toContain(`${name}_sum{operation="consume",outcome="ok"} 0.0074`);
    expect(text).toContain(`${name}_bucket{le="0.1",operation="consume",outcome="error"} 1`);
    expect(text).toContain(`${name}_bucket{le="0.01",operation="refund",outcome="ok"} 1`);
  });
});

describe('store_errors_total', () => {
  it("counts by the error's code, and 'unknown' when it has none", async () => {
    const registry = new Registry();
    const { onStoreError } = prometheusHooks({ registry });
    onStoreError({ error: new StoreTimeoutError(100), operation: 'consume' });
    onStoreError({ error: new StoreTimeoutError(100), operation: 'consume' });
    onStoreError({ error: new StoreError('dropped'), operation: 'refund' });
    onStoreError({ error: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }), operation: 'consume' });
    onStoreError({ error: new Error('Connection is closed.'), operation: 'consume' });
    onStoreError({ error: 'a string', operation: 'consume' });
    onStoreError({ error: { code: 'not a code: it has spaces' }, operation: 'consume' });
    expect(await seriesOf(registry, 'floodgate_store_errors_total')).toEqual({
      'code=ERR_FLOODGATE_STORE_TIMEOUT,operation=consume': 2,
      'code=ERR_FLOODGATE_STORE,operation=refund': 1,
      'code=ECONNREFUSED,operation=consume': 1,
      'code=unknown,operation=consume': 3,
    });
  });

  it(`keeps at most ${MAX_CODES} codes per operation, then counts the rest as 'other'`, async () => {
    const registry = new Registry();
    const { onStoreError } = prometheusHooks({ registry });
    for (let i = 0; i < MAX_CODES + 10; i++) onStoreError({ error: { code: `E${i}` }, operation: 'consume' });
    onStoreError({ error: { code: 'E0' }, operation: 'consume' });
    const series = await seriesOf(registry, 'floodgate_store_errors_total');
    expect(Object.keys(series)).toHaveLength(MAX_CODES + 1);
    expect(series['code=other,operation=consume']).toBe(10);
    expect(series['code=E0,operation=consume']).toBe(2);
  });
});

describe('breaker_state', () => {
  it('follows each partition: 0 closed, 1 half-open, 2 open', async () => {
    const registry = new Registry();
    const { onBreakerChange } = prometheusHooks({ registry });
    onBreakerChange({ from: 'closed', to: 'open', at: 1 });
    onBreakerChange({ from: 'closed', to: 'open', at: 1, partition: '10.0.0.1:7000' });
    onBreakerChange({ from: 'open', to: 'half-open', at: 2, partition: '10.0.0.1:7000' });
    expect(await seriesOf(registry, 'floodgate_breaker_state')).toEqual({
      'partition=': 2,
      'partition=10.0.0.1:7000': 1,
    });
    onBreakerChange({ from: 'half-open', to: 'closed', at: 3, partition: '10.0.0.1:7000' });
    expect(await sampleOf(registry, 'floodgate_breaker_state', { partition: '10.0.0.1:7000' })).toBe(0);
  });
});
