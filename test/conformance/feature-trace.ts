import { expect } from 'vitest';
import { concurrency, fixedWindow, gcra, leakyBucket, slidingLog, slidingWindow, tokenBucket } from '@floodgate/core';
import { runSeed, seededRandom } from '../redis/fixtures/random.ts';
import type { Algorithm, AlgorithmKind, MemoryStore } from '@floodgate/core';
import type { LayerCall, LayerOutcome, Penalty, Store } from '@floodgate/core/store';
import type { RedisStore } from '@floodgate/redis';
import type { Random } from '../redis/fixtures/random.ts';
import { ALGORITHM_KINDS as ALL_KINDS } from '../redis/fixtures/algorithms.ts';

/** What a rule asks of its layer, beside the algorithm: as the limiter would pass it on every call. */
export interface FeatureRule {
  algorithm: Algorithm;
  shadow: boolean;
  /** Whether critical requests may use this rule's reserve (the limiter's `priority`). */
  prioritised: boolean;
  penalty: Penalty | undefined;
}

export interface FeatureRules {
  a: FeatureRule;
  b: FeatureRule;
}

/** One store operation of a trace. */
export type FeatureOp =
  | { op: 'consume'; calls: LayerCall[]; requestId: string }
  | { op: 'peek' | 'refund'; calls: LayerCall[]; requestId: string }
  | { op: 'reset' | 'unblock'; calls: LayerCall[] }
  | { op: 'block'; calls: LayerCall[]; duration: number };

/** How long strikes are remembered: never past the trace (`long`), or a few steps (`short`). */
export type StrikeMemory = 'long' | 'short';

const IDENTITIES = ['u0', 'u1', 'u2'];
const DAY = 86_400_000;

const rate = (random: Random) => random.pick([0.5, 1, 2, 5, 10, 0.25, 7.5]);

/**
 * A reserve option for a quota of `limit`: a fraction (maybe rounding to 0 units) or whole units;
 * none now and then unless `kept`, which asks for at least one unit.
 */
function pickReserve(random: Random, limit: number, kept: boolean): { reserve?: number } {
  if (limit < 2 || (!kept && random.chance(0.25))) return {};
  const fraction = random.pick([0.1, 0.25, 0.5, 0.75]);
  if (random.chance(0.5) && (!kept || Math.floor(limit * fraction) >= 1)) return { reserve: fraction };
  return { reserve: random.int(1, limit - 1) };
}

/**
 * A random valid configuration of `kind`, with a reserve wherever the algorithm takes one (`kept`:
 * a quota of at least 2 and a reserve of at least one unit).
 */
export function algorithmWithReserve(random: Random, kind: AlgorithmKind, scale: number, kept = false): Algorithm {
  const limit = random.int(kept ? 2 : 1, 10);
  const window = random.int(scale / 4, scale * 2);
  switch (kind) {
    case 'fixedWindow':
      return fixedWindow({ limit, window, ...pickReserve(random, limit, kept) });
    case 'slidingWindow':
      return slidingWindow({ limit, window, ...pickReserve(random, limit, kept) });
    case 'tokenBucket':
      return tokenBucket({ capacity: limit, refillRate: rate(random), ...pickReserve(random, limit, kept) });
    case 'leakyBucket': {
      const mode = random.chance(0.5) ? 'shaping' : 'policing';
      return leakyBucket({ capacity: limit, leakRate: rate(random), mode, ...pickReserve(random, limit, kept) });
    }
    case 'gcra':
      return gcra({
        rate: random.int(1, 10),
        period: window,
        burst: limit - 1,
        ...pickReserve(random, limit, kept),
      });
    case 'slidingLog':
      return slidingLog({ limit, window });
    case 'concurrency':
      return concurrency({ max: limit, lease: window });
  }
}

/** A penalty; an `escalating` one doubles at least once before it reaches its cap. */
function penaltyFor(random: Random, scale: number, strikes: StrikeMemory, escalating: boolean): Penalty {
  const duration = random.int(scale / 20, scale / 2);
  if (!escalating && random.chance(0.3)) return { duration, period: 0, max: duration };
  const max =
    duration * random.pick(escalating ? [2, 4, 16] : [1, 2, 4, 16]) + random.int(0, 1) * random.int(1, duration);
  // `long`: a day, far past any trace, so neither store forgets strikes by itself.
  const period = strikes === 'long' ? DAY : random.int(scale / 2, scale * 3);
  return { duration, period, max };
}

export interface FeatureRuleOptions {
  strikes: StrikeMemory;
  /** Whether rule `b` is a shadow: always, half the time, or never. Default `'sometimes'`. */
  shadow?: 'always' | 'sometimes' | 'never';
}

/**
 * Rule `a` is of `kind`, enforced, prioritised, with a reserve where its algorithm takes one and an
 * escalating penalty: every feature is in play on every run. Rule `b` is of any of `kinds`, with
 * each feature left to chance.
 */
export function featureRules(
  random: Random,
  kind: AlgorithmKind,
  kinds: readonly AlgorithmKind[],
  scale: number,
  { strikes, shadow = 'sometimes' }: FeatureRuleOptions,
): FeatureRules {
  return {
    a: {
      algorithm: algorithmWithReserve(random, kind, scale, true),
      shadow: false,
      prioritised: true,
      penalty: penaltyFor(random, scale, strikes, true),
    },
    b: {
      algorithm: algorithmWithReserve(random, random.pick(kinds), scale),
      shadow: shadow === 'always' || (shadow === 'sometimes' && random.chance(0.5)),
      prioritised: random.chance(0.5),
      penalty: random.chance(0.5) ? penaltyFor(random, scale, strikes, false) : undefined,
    },
  };
}

/** Costs near the edges are where models differ: 0, 1, a few, and the most the request may ask. */
function costFor(random: Random, maxCost: number): number {
  if (random.chance(0.08)) return 0;
  if (random.chance(0.12)) return maxCost;
  return random.int(1, Math.min(3, maxCost));
}

/** A rule's call for `key`, its cost within what the limiter would let the request ask. */
function callOf(random: Random, rule: FeatureRule, key: string, critical: boolean): LayerCall {
  const { algorithm } = rule;
  const usesReserve = critical && rule.prioritised;
  const cost = costFor(random, usesReserve ? algorithm.maxCost : algorithm.maxCost - algorithm.reserve);
  return { key, algorithm, cost, shadow: rule.shadow, critical: usesReserve, penalty: rule.penalty };
}

export type Held = Map<string, { id: string; cost: number }[]>;

/**
 * Builds the operations of one step: on disjoint keys, or (half the steps) on keys drawn again, so
 * that requests of one batch meet on a key. `held` remembers admitted concurrency requests per key,
 * so a refund can release a lease that exists (the way `decision.release()` does).
 */
export function featureStep(
  random: Random,
  rules: FeatureRules,
  nextId: () => string,
  held: Held,
  scale: number,
): FeatureOp[] {
  const shuffled = () => [...IDENTITIES].sort(() => random.next() - 0.5);
  const free = { a: shuffled(), b: shuffled() };
  const disjoint = random.chance(0.5);
  const take = (rule: 'a' | 'b') => keyOf(rule, disjoint ? (free[rule].pop() as string) : random.pick(IDENTITIES));
  const layers = (critical: boolean): LayerCall[] => {
    const which = random.next();
    const names: ('a' | 'b')[] = which < 0.45 ? ['a', 'b'] : which < 0.75 ? ['a'] : ['b'];
    return names.map((name) => callOf(random, rules[name], take(name), critical));
  };
  const ops: FeatureOp[] = [];
  for (let n = random.int(1, 3); n > 0 && free.a.length > 0 && free.b.length > 0; n--) {
    const roll = random.next();
    const critical = random.chance(0.3);
    if (roll < 0.64) ops.push({ op: 'consume', calls: layers(critical), requestId: nextId() });
    else if (roll < 0.76) ops.push({ op: 'peek', calls: layers(critical), requestId: nextId() });
    else if (roll < 0.9) ops.push(refundOf(random, rules, take, nextId, held));
    else if (roll < 0.93) ops.push({ op: 'reset', calls: layers(false) });
    else if (roll < 0.97) ops.push({ op: 'block', calls: layers(false), duration: random.int(1, scale * 2) });
    else ops.push({ op: 'unblock', calls: layers(false) });
  }
  return ops;
}

export function keyOf(rule: 'a' | 'b', identity: string): string {
  return `fg:${rule}:{${identity}}`;
}

/** Every key a trace over `rules` can touch, each with its rule's call at cost 0. */
export function everyKey(rules: FeatureRules): LayerCall[] {
  return (['a', 'b'] as const).flatMap((name) =>
    IDENTITIES.map((identity) => {
      const { algorithm, shadow, penalty } = rules[name];
      return { key: keyOf(name, identity), algorithm, cost: 0, shadow, penalty };
    }),
  );
}

function refundOf(
  random: Random,
  rules: FeatureRules,
  take: (rule: 'a' | 'b') => string,
  nextId: () => string,
  held: Held,
): FeatureOp {
  const name = random.chance(0.5) ? 'a' : 'b';
  const rule = rules[name];
  const { algorithm, shadow, penalty } = rule;
  const key = take(name);
  if (algorithm.kind === 'concurrency') {
    const leases = held.get(key) ?? [];
    const lease =
      leases.length > 0 && random.chance(0.9) ? leases.splice(random.int(0, leases.length - 1), 1)[0] : undefined;
    const released = lease ?? { id: nextId(), cost: random.int(1, algorithm.maxCost) };
    return { op: 'refund', calls: [{ key, algorithm, cost: released.cost, shadow, penalty }], requestId: released.id };
  }
  const cost = random.int(1, Math.min(3, algorithm.maxCost));
  return { op: 'refund', calls: [{ key, algorithm, cost, shadow, penalty }], requestId: '' };
}

const SCALE_MS = 2000;

/** What a trace exercised, counted from the model's answers: a trace that never blocks tests little. */
export interface Coverage {
  denied: number;
  penalised: number;
  /** Penalties given to a normal request while the reserve still had room: they hold normal requests only. */
  reserveKept: number;
  escalated: number;
  reserveUsed: number;
  shadowDenied: number;
  controls: number;
}

export interface ReplayOptions {
  /** Rule `a` is of one of these kinds (picked by the seed); rule `b` of any. */
  kinds: readonly AlgorithmKind[];
  operations: number;
  rules: FeatureRuleOptions;
  /** The two stores, both reading `clock`. */
  stores(clock: () => number): { memory: MemoryStore; redis: RedisStore };
  /** Each step's operations sent to Redis at once (one batch on a single node), or one by one. */
  together: boolean;
}

/**
 * Runs a random trace over both stores at one simulated clock and fails, with the seed, the rules
 * and the step, on the first outcome that differs in any field. FLOODGATE_SEED replays a run.
 */
export async function replay(options: ReplayOptions): Promise<{ coverage: Coverage; rules: FeatureRules }> {
  const seed = runSeed();
  const random = seededRandom(seed);
  const rules = featureRules(random, random.pick(options.kinds), ALL_KINDS, SCALE_MS, options.rules);
  let now = 1_700_000_000_000 + random.int(0, 10_000_000);
  const { memory, redis } = options.stores(() => now);
  const advance = simulatedClock(now);
  const held: Held = new Map();
  let ids = 0;
  const nextId = () => `req-${++ids}`;
  const coverage: Coverage = {
    denied: 0,
    penalised: 0,
    reserveKept: 0,
    escalated: 0,
    reserveUsed: 0,
    shadowDenied: 0,
    controls: 0,
  };
  for (let step = 0, done = 0; done < options.operations; step++) {
    now = advance(random.chance(0.05) ? random.int(SCALE_MS, SCALE_MS * 3) : random.int(1, SCALE_MS / 10));
    // Now and then every key at cost 0: shows a block or a state that differs where no request looks.
    const ops: FeatureOp[] =
      step % 40 === 39
        ? [{ op: 'peek', calls: everyKey(rules), requestId: nextId() }]
        : featureStep(random, rules, nextId, held, SCALE_MS);
    const fromRedis = options.together ? await Promise.all(ops.map((op) => runOp(redis, op))) : [];
    for (const [index, op] of ops.entries()) {
      const actual = options.together ? fromRedis[index] : await runOp(redis, op);
      const before = op.op === 'consume' ? lookAhead(memory, op) : undefined;
      const expected = await runOp(memory, op);
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        const where = { seed, rules: describeRules(rules), step, now, op: describeOp(op) };
        expect({ actual, ...where }, `seed ${seed} (FLOODGATE_SEED=${seed} replays it), step ${step}`).toEqual({
          actual: expected,
          ...where,
        });
      }
      if (op.op === 'consume' && expected !== undefined && before) count(coverage, op, expected, before, held);
      if (op.op === 'reset' || op.op === 'block' || op.op === 'unblock') coverage.controls += 1;
    }
    done += ops.length;
  }
  return { coverage, rules };
}

/**
 * The simulated clock never runs slower than the real one: the jumps the trace asks for on top of
 * the real time gone by. A store that expires keys by its own clock (Redis' PEXPIRE, a Durable
 * Object's TTL) has then always dropped a key the model no longer needs either.
 */
export function simulatedClock(start: number): (ms: number) => number {
  const realStart = Date.now();
  let jumps = 0;
  return (ms) => {
    jumps += ms;
    return start + (Date.now() - realStart) + jumps;
  };
}

/** A store with every control operation (MemoryStore, RedisStore). */
export type ControlStore = Required<Pick<Store, 'consume' | 'refund' | 'peek' | 'reset' | 'block' | 'unblock'>>;

/** Runs one operation of a trace on `store`: the outcomes of a consume or a peek, else undefined. */
export async function runOp(store: ControlStore, op: FeatureOp): Promise<LayerOutcome[] | undefined> {
  switch (op.op) {
    case 'consume':
      return store.consume(op.calls, op.requestId);
    case 'peek':
      return store.peek(op.calls, op.requestId);
    case 'refund':
      await store.refund(op.calls, op.requestId);
      return undefined;
    case 'block':
      await store.block(op.calls, op.duration);
      return undefined;
    default:
      await store[op.op](op.calls);
      return undefined;
  }
}

/** What the model says before a consume, at no charge: to tell afterwards what the consume exercised. */
export interface LookAhead {
  /** Each layer as a normal request (no reserve). */
  normal: LayerOutcome[];
  /** Each layer's own answer at its cost (a block's, or the algorithm's). */
  own: LayerOutcome[];
  /** Whether each key was blocked: only a block denies a critical request of cost 0. */
  blocked: boolean[];
  /** Whether the reserve had room: a critical request of cost 1 would pass. */
  room: boolean[];
}

export function lookAhead(memory: MemoryStore, op: FeatureOp & { op: 'consume' }): LookAhead {
  const at = (change: Partial<LayerCall>) =>
    memory.peekNow(
      op.calls.map((call) => ({ ...call, ...change })),
      op.requestId,
    );
  return {
    normal: at({ critical: false }),
    own: memory.peekNow(op.calls, op.requestId),
    blocked: at({ cost: 0, critical: true }).map((outcome) => !outcome.allowed),
    room: at({ cost: 1, critical: true }).map((outcome) => outcome.allowed),
  };
}

/** Counts what a consume exercised; remembers the leases it took. */
function count(
  coverage: Coverage,
  op: FeatureOp & { op: 'consume' },
  outcomes: LayerOutcome[],
  before: LookAhead,
  held: Held,
): void {
  const admitted = op.calls.every((call, i) => call.shadow === true || outcomes[i]?.allowed);
  if (!admitted) coverage.denied += 1;
  for (const [i, call] of op.calls.entries()) {
    const outcome = outcomes[i] as LayerOutcome;
    if (admitted && call.algorithm.kind === 'concurrency' && outcome.allowed && call.cost > 0) {
      const leases = held.get(call.key) ?? [];
      leases.push({ id: op.requestId, cost: call.cost });
      held.set(call.key, leases);
    }
    if (admitted && call.critical && outcome.allowed && before.normal[i]?.allowed === false) coverage.reserveUsed += 1;
    if (admitted && call.shadow && !outcome.allowed) coverage.shadowDenied += 1;
    const penalty = call.penalty;
    if (admitted || outcome.allowed || call.shadow || penalty === undefined || before.blocked[i]) continue;
    coverage.penalised += 1;
    if (!call.critical && call.algorithm.reserve > 0 && before.room[i]) coverage.reserveKept += 1;
    // Longer than both the first penalty and the algorithm's own wait: only escalation makes that.
    if (outcome.retryAfter > Math.max(penalty.duration, before.own[i]?.retryAfter ?? 0)) coverage.escalated += 1;
  }
}

export function describeRules(rules: FeatureRules) {
  const one = ({ algorithm, shadow, prioritised, penalty }: FeatureRule) => ({
    kind: algorithm.kind,
    options: algorithm.options,
    shadow,
    prioritised,
    penalty,
  });
  return { a: one(rules.a), b: one(rules.b) };
}

export function describeOp(op: FeatureOp) {
  return { ...op, calls: op.calls.map(({ key, cost, critical }) => ({ key, cost, critical })) };
}
