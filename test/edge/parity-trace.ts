import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import { MemoryStore } from '@floodgate/core';
import {
  describeOp,
  describeRules,
  everyKey,
  featureRules,
  featureStep,
  lookAhead,
  runOp,
  simulatedClock,
} from '../conformance/feature-trace.ts';
import { runSeed, seededRandom } from '../redis/fixtures/random.ts';
import { fetchFrom } from './miniflare.ts';
import type { AlgorithmKind } from '@floodgate/core';
import type { LayerOutcome } from '@floodgate/core/store';
import type { Miniflare } from 'miniflare';
import type { FeatureOp, FeatureRuleOptions, Held, LookAhead } from '../conformance/feature-trace.ts';
import type { StoreCall } from './workers/store-route.ts';
import { ALGORITHM_KINDS as ALL_KINDS } from '../redis/fixtures/algorithms.ts';

/** What a trace exercised, counted from MemoryStore's answers: a trace that never blocks proves little. */
export interface Coverage {
  crossObject: number;
  denied: number;
  penalised: number;
  reserveUsed: number;
  shadowDenied: number;
  controls: number;
}

export interface ParityOptions {
  /** The Worker serving `POST /store` (see workers/store-route.ts). */
  mf: Miniflare;
  worker: string;
  /** Rule `a` is of this kind; rule `b` of any. */
  kind: AlgorithmKind;
  operations: number;
  rules: FeatureRuleOptions;
  /**
   * When set, the clock moves on by this much (ms) after every consume admitted over layers of
   * several identities, before the next operation: past the objects' pending-charges window.
   */
  settle?: number;
}

const SCALE_MS = 2000;
let runs = 0;

/**
 * The trace of test/conformance (shadow, critical and penalty layers over three identities, with
 * refunds, resets, blocks and unblocks), run on a MemoryStore here and on a DurableObjectStore in
 * workerd at the same instants: the store's `clock` sends each operation's `now` to the objects.
 * Fails, with the seed, the rules and the step, on the first outcome that differs in any field.
 * FLOODGATE_SEED replays a run's operations (its instants follow this machine's speed, see below).
 */
export async function replayOnObjects(options: ParityOptions): Promise<Coverage> {
  const seed = runSeed();
  const random = seededRandom(seed);
  const rules = featureRules(random, options.kind, ALL_KINDS, SCALE_MS, options.rules);
  // Fresh identities per run, so fresh objects: `{u0}` becomes `{p3.u0}`.
  const tag = `p${++runs}-${seed}.`;
  let now = 1_700_000_000_000 + random.int(0, 10_000_000);
  const memory = new MemoryStore({ clock: () => now });
  const advance = simulatedClock(now);
  const held: Held = new Map();
  let ids = 0;
  const nextId = () => `req-${++ids}`;
  const coverage: Coverage = { crossObject: 0, denied: 0, penalised: 0, reserveUsed: 0, shadowDenied: 0, controls: 0 };
  for (let step = 0, done = 0; done < options.operations; step++) {
    now = advance(random.chance(0.05) ? random.int(SCALE_MS, SCALE_MS * 3) : random.int(1, SCALE_MS / 10));
    const ops: FeatureOp[] =
      step % 40 === 39
        ? [{ op: 'peek', calls: everyKey(rules), requestId: nextId() }]
        : featureStep(random, rules, nextId, held, SCALE_MS);
    for (const op of ops.map((each) => retag(each, tag))) {
      const before = op.op === 'consume' ? lookAhead(memory, op) : undefined;
      const actual = await runInWorker(options, op, now);
      const expected = await runOp(memory, op);
      if (!isDeepStrictEqual(actual, expected)) {
        const where = { seed, rules: describeRules(rules), step, now, op: describeOp(op) };
        expect({ actual, ...where }, `seed ${seed} (FLOODGATE_SEED=${seed} replays it), step ${step}`).toEqual({
          actual: expected,
          ...where,
        });
      }
      if (op.op === 'consume') {
        const split = count(coverage, op, expected as LayerOutcome[], before as LookAhead, held, tag);
        if (split && options.settle !== undefined) now = advance(options.settle);
      } else if (op.op !== 'peek' && op.op !== 'refund') coverage.controls += 1;
    }
    done += ops.length;
  }
  return coverage;
}

function retag(op: FeatureOp, tag: string): FeatureOp {
  return { ...op, calls: op.calls.map((call) => ({ ...call, key: call.key.replace('{', `{${tag}`) })) };
}

async function runInWorker(options: ParityOptions, op: FeatureOp, now: number): Promise<LayerOutcome[] | undefined> {
  const body: StoreCall = {
    op: op.op,
    now,
    ...('requestId' in op ? { id: op.requestId } : {}),
    ...(op.op === 'block' ? { duration: op.duration } : {}),
    calls: op.calls.map(({ key, algorithm, cost, shadow, critical, penalty }) => ({
      key,
      kind: algorithm.kind,
      options: algorithm.options,
      cost,
      ...(shadow === undefined ? {} : { shadow }),
      ...(critical === undefined ? {} : { critical }),
      ...(penalty === undefined ? {} : { penalty }),
    })),
  };
  const response = await fetchFrom(options.mf, options.worker, '/store', {
    method: 'POST',
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { outcomes?: LayerOutcome[]; error?: unknown };
  if (answer.error !== undefined) throw new Error(`the Worker failed ${op.op}: ${JSON.stringify(answer.error)}`);
  return answer.outcomes;
}

/**
 * Counts what a consume exercised, and remembers the concurrency leases it took (for later
 * refunds); answers whether it was admitted over layers of several identities.
 */
function count(
  coverage: Coverage,
  op: FeatureOp & { op: 'consume' },
  outcomes: LayerOutcome[],
  before: LookAhead,
  held: Held,
  tag: string,
): boolean {
  const identities = new Set(op.calls.map((call) => call.key.slice(call.key.indexOf('{'))));
  const admitted = op.calls.every((call, i) => call.shadow === true || outcomes[i]?.allowed);
  if (identities.size > 1) coverage.crossObject += 1;
  if (!admitted) coverage.denied += 1;
  for (const [i, call] of op.calls.entries()) {
    const outcome = outcomes[i] as LayerOutcome;
    if (admitted && call.algorithm.kind === 'concurrency' && outcome.allowed && call.cost > 0) {
      // featureStep picks leases by the key it made, without the tag.
      const key = call.key.replace(`{${tag}`, '{');
      held.set(key, [...(held.get(key) ?? []), { id: op.requestId, cost: call.cost }]);
    }
    if (admitted && call.critical === true && outcome.allowed && before.normal[i]?.allowed !== true) {
      coverage.reserveUsed += 1;
    }
    if (admitted && call.shadow === true && !outcome.allowed) coverage.shadowDenied += 1;
    if (!admitted && !outcome.allowed && call.penalty !== undefined && call.shadow !== true && !before.blocked[i]) {
      coverage.penalised += 1;
    }
  }
  return admitted && identities.size > 1;
}
