import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTLE_MS } from '../../packages/cloudflare/src/pending-charges.ts';
import { bundleWorker } from './bundle.ts';
import { startWorkers } from './miniflare.ts';
import { replayOnObjects } from './parity-trace.ts';
import type { AlgorithmKind } from '@floodgate/core';
import type { Miniflare } from 'miniflare';
import { ALGORITHM_KINDS as KINDS } from '../redis/fixtures/algorithms.ts';

/**
 * FloodgateObject decides with core's consumeLayers and peekLayers, the code MemoryStore runs: these
 * traces check that the rest (its SQLite storage, the wire, the split over objects with refunds)
 * keeps it so. Each kind in turn is rule `a`, beside a random rule `b`; both stores decide every
 * operation at the same instant.
 *
 * Layers split over objects differ from MemoryStore in one documented way: for SETTLE_MS after a
 * request charged part of its layers, a denial that charge alone explains may be a moment's
 * (the charge may yet be refunded), so it gets a short wait and no penalty (PendingCharges, tested
 * in durable-object-pending.test.ts). There the trace moves its clock past that window after each
 * request admitted over several objects: the only requests that leave such charges behind.
 */

const WITH_RESERVE = new Set<AlgorithmKind>(['fixedWindow', 'slidingWindow', 'tokenBucket', 'leakyBucket', 'gcra']);

describe.each([
  ['every key in one object (shards: 1)', { shards: 1 }, {}],
  ['one object per identity (layers split over objects)', {}, { settle: SETTLE_MS }],
])('MemoryStore and DurableObjectStore in workerd, %s', (_, placement, timing) => {
  let mf: Miniflare;
  beforeAll(async () => {
    mf = startWorkers(await bundleWorker('hono-durable'), [
      { name: 'parity', config: { limit: 1, ...placement }, objectClass: 'FloodgateObject' },
    ]);
    await mf.ready;
  });
  afterAll(() => mf?.dispose());

  // Rule `b` is a shadow beside every other kind, and enforced beside the rest.
  const cases = KINDS.map((kind, i) => ({ kind, shadow: i % 2 === 0 ? ('always' as const) : ('never' as const) }));

  it.each(cases)(
    '$kind, shadow $shadow: the same outcomes, field by field, on a random trace',
    async ({ kind, shadow }) => {
      const coverage = await replayOnObjects({
        mf,
        worker: 'parity',
        kind,
        operations: 600,
        rules: { strikes: 'short', shadow },
        ...timing,
      });
      const seen = JSON.stringify(coverage);
      expect(coverage.denied, seen).toBeGreaterThan(20);
      expect(coverage.penalised, seen).toBeGreaterThan(2);
      expect(coverage.controls, seen).toBeGreaterThan(10);
      if (!('shards' in placement)) expect(coverage.crossObject, seen).toBeGreaterThan(50);
      if (WITH_RESERVE.has(kind)) expect(coverage.reserveUsed, seen).toBeGreaterThan(0);
      if (shadow === 'always') expect(coverage.shadowDenied, seen).toBeGreaterThan(0);
    },
  );
});
