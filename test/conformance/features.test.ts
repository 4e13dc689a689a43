import { describe, expect, it } from 'vitest';
import { MemoryStore } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { ALGORITHM_KINDS } from '../redis/fixtures/algorithms.ts';
import { freshPrefix } from '../redis/fixtures/client.ts';
import { useRedis } from '../redis/fixtures/suite.ts';
import { replay } from './feature-trace.ts';
import type { AlgorithmKind } from '@floodgate/core';
import type { FeatureRuleOptions } from './feature-trace.ts';

const suite = useRedis({ enableAutoPipelining: true });

const WITH_RESERVE = new Set<AlgorithmKind>(['fixedWindow', 'slidingWindow', 'tokenBucket', 'leakyBucket', 'gcra']);

interface TraceOptions {
  kinds: readonly AlgorithmKind[];
  operations: number;
  rules: FeatureRuleOptions;
  scripts: 'eval' | 'function';
}

/**
 * Both stores on one clock; each step's operations reach Redis as one batch, as under load, run by
 * EVALSHA or by the Functions library.
 */
function trace({ kinds, operations, rules, scripts }: TraceOptions) {
  return replay({
    kinds,
    operations,
    rules,
    together: true,
    stores: (clock) => ({
      memory: new MemoryStore({ clock }),
      redis: new RedisStore({ client: suite.client, clock, scripts, prefix: freshPrefix('features') }),
    }),
  });
}

// Each kind in turn runs by EVALSHA or by FCALL, and beside a shadow layer or an enforced one.
const CASES = ALGORITHM_KINDS.map((kind, i) => ({
  kind,
  scripts: i % 2 === 0 ? ('eval' as const) : ('function' as const),
  shadow: i % 3 === 2 ? ('never' as const) : ('always' as const),
}));

describe.each(CASES)('$kind with reserve, penalties, control operations, $scripts, shadow: $shadow', (each) => {
  it('gives the same outcomes in TypeScript (MemoryStore) and Lua (RedisStore), field by field', async () => {
    const { kind, scripts, shadow } = each;
    // A trace of random rules misses a feature now and then (an escalation hidden behind a longer
    // wait of the algorithm's own: about 1 trace in 400): another trace, on a fresh seed, adds to
    // the coverage. Every trace is compared in full.
    const coverage = {
      denied: 0,
      penalised: 0,
      escalated: 0,
      reserveUsed: 0,
      reserveKept: 0,
      shadowDenied: 0,
      controls: 0,
    };
    const covered = () =>
      coverage.denied > 100 &&
      coverage.penalised > 10 &&
      coverage.escalated > 0 &&
      coverage.controls > 100 &&
      (!WITH_RESERVE.has(kind) || (coverage.reserveUsed > 0 && coverage.reserveKept > 0)) &&
      (shadow !== 'always' || coverage.shadowDenied > 0);
    for (let traces = 0; traces < 3 && !covered(); traces++) {
      const run = await trace({ kinds: [kind], operations: 4000, rules: { strikes: 'long', shadow }, scripts });
      for (const field of Object.keys(coverage) as (keyof typeof coverage)[]) coverage[field] += run.coverage[field];
    }
    const seen = JSON.stringify(coverage);
    expect(coverage.denied, seen).toBeGreaterThan(100);
    expect(coverage.penalised, seen).toBeGreaterThan(10);
    expect(coverage.escalated, seen).toBeGreaterThan(0);
    expect(coverage.controls, seen).toBeGreaterThan(100);
    if (WITH_RESERVE.has(kind)) {
      expect(coverage.reserveUsed, seen).toBeGreaterThan(0);
      expect(coverage.reserveKept, seen).toBeGreaterThan(0);
    }
    if (shadow === 'always') expect(coverage.shadowDenied, seen).toBeGreaterThan(0);
  });
});

describe('strikes remembered for less than the trace', () => {
  // Strikes are remembered `period` after the last penalty by the store's clock, as every other
  // time in the model is: a store given a clock must forget them when that clock says so.
  it('escalate the same in both stores when the store clock runs ahead of Redis', async () => {
    const { coverage } = await trace({
      kinds: ALGORITHM_KINDS,
      operations: 3000,
      rules: { strikes: 'short' },
      scripts: 'eval',
    });
    expect(coverage.penalised).toBeGreaterThan(10);
  });
});
