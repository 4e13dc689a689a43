import { expect } from 'vitest';
import { MemoryStore } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { ALGORITHM_FACTORIES } from '../redis/fixtures/algorithms.ts';
import { freshPrefix } from '../redis/fixtures/client.ts';
import { runSeed, seededRandom } from '../redis/fixtures/random.ts';
import { stepOps } from './trace.ts';
import type { RedisStoreOptions } from '@floodgate/redis';
import type { AlgorithmKind } from '@floodgate/core';
import type { LayerOutcome } from '@floodgate/core/store';
import type { TraceOp } from './trace.ts';

const SCALE_MS = 2000;

/**
 * The conformance trace: `operations` random operations of `kind` over several keys, run on
 * RedisStore over `client` and on MemoryStore with the same clock, compared field by field. A
 * failure prints the seed, step and operation.
 */
export async function expectTraceAgrees(
  kind: AlgorithmKind,
  client: RedisStoreOptions['client'],
  family: string,
  operations: number,
): Promise<void> {
  const seed = runSeed();
  const random = seededRandom(seed);
  const factory = ALGORITHM_FACTORIES[kind];
  const rules = { a: factory(random, SCALE_MS), b: factory(random, SCALE_MS) };
  let now = 1_700_000_000_000 + random.int(0, 10_000_000);
  const clock = () => now;
  const memory = new MemoryStore({ clock });
  const redis = new RedisStore({ client, clock, prefix: freshPrefix(`conformance-${kind}`) });
  const simulated = simulatedClock(now);
  const held = new Map<string, { id: string; cost: number }[]>();
  let ids = 0;
  const nextId = () => {
    ids += 1;
    return `req-${ids}`;
  };
  const context = { family, seed, rules: { a: rules.a.options, b: rules.b.options } };

  let done = 0;
  let denied = 0;
  for (let step = 0; done < operations; step++) {
    now = simulated.advance(random.chance(0.05) ? random.int(SCALE_MS, SCALE_MS * 3) : random.int(1, SCALE_MS / 10));
    const ops = stepOps(random, rules, nextId, held);
    const fromRedis = await Promise.all(ops.map((op) => run(redis, op)));
    for (const [index, op] of ops.entries()) {
      const expected = await run(memory, op);
      const actual = fromRedis[index];
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        expect({ actual, ...context, step, now, op: describeOp(op) }).toEqual({
          actual: expected,
          ...context,
          step,
          now,
          op: describeOp(op),
        });
      }
      if (op.op === 'consume' && expected?.every((outcome) => outcome.allowed)) remember(held, op);
      if (expected !== undefined && !expected.every((outcome) => outcome.allowed)) denied += 1;
    }
    done += ops.length;
  }
  // A trace that never denies would not test much.
  expect(denied).toBeGreaterThan(operations / 100);
}

/**
 * The simulated clock never runs slower than the real one: Redis expires keys by its own clock
 * (PEXPIRE), so a key Redis has dropped is always one the model no longer needs either.
 */
function simulatedClock(start: number) {
  const realStart = Date.now();
  let jumps = 0;
  return {
    advance(ms: number) {
      jumps += ms;
      return start + (Date.now() - realStart) + jumps;
    },
  };
}

async function run(store: MemoryStore | RedisStore, op: TraceOp): Promise<LayerOutcome[] | undefined> {
  if (op.op === 'consume') return store.consume(op.calls, op.requestId);
  await store.refund(op.calls, op.requestId);
  return undefined;
}

function remember(held: Map<string, { id: string; cost: number }[]>, op: TraceOp): void {
  for (const call of op.calls) {
    if (call.algorithm.kind !== 'concurrency' || call.cost === 0) continue;
    const list = held.get(call.key) ?? [];
    list.push({ id: op.requestId, cost: call.cost });
    held.set(call.key, list);
  }
}

function describeOp(op: TraceOp) {
  return { op: op.op, requestId: op.requestId, calls: op.calls.map((call) => ({ key: call.key, cost: call.cost })) };
}
