import { InvalidCostError, InvalidOptionError, InvalidOptionTypeError, StoreError } from '@floodgate/core';
import { MAX_TIMER_MS, show } from '@floodgate/core/store';
import type { AlgorithmKind } from '@floodgate/core';
import type { LayerCall, LayerOutcome, Penalty } from '@floodgate/core/store';

/**
 * The JSON a DurableObjectStore POSTs to a FloodgateObject, and what comes back. Algorithms travel
 * as their factory's name and options, and the object builds the same algorithm from them; `params`
 * go along so that an object running another version of the code, which would build something
 * else, refuses instead of deciding differently. The object checks every field again
 * (parseRequest): the wire is not trusted.
 */
export type Operation = 'consume' | 'refund' | 'peek' | 'reset' | 'block' | 'unblock';

export interface WireLayer {
  key: string;
  kind: AlgorithmKind;
  options: Readonly<Record<string, unknown>>;
  params: readonly number[];
  cost: number;
  /** Present only when true, as are `critical` and `penalty` when given: the usual layer stays small. */
  shadow?: true;
  critical?: true;
  penalty?: Penalty;
}

export interface WireRequest {
  op: Operation;
  /** The request id sliding log entries and concurrency leases are kept under. */
  id: string;
  layers: readonly WireLayer[];
  /** A consume of some of a request's layers, the others going to other objects (see PendingCharges). */
  partial?: boolean;
  /** The store's `clock` reading (epoch ms); without it the object decides by its own clock. */
  now?: number;
  /** `block` only: how long the block lasts, in ms. */
  duration?: number;
}

/** One outcome per layer; after any operation but consume and peek, each layer's numbers at cost 0. */
export interface WireReply {
  outcomes: LayerOutcome[];
}

/**
 * What FloodgateObject answers (HTTP 500) to every call when its class has no SQLite storage:
 * `storage` says why, so that the store can tell the app once how to fix it.
 */
export interface StorageRefusal {
  error: string;
  storage: 'key-value';
}

export function isStorageRefusal(body: unknown): body is StorageRefusal {
  const fields = body as Partial<StorageRefusal> | null;
  return (
    typeof fields === 'object' && fields !== null && fields.storage === 'key-value' && typeof fields.error === 'string'
  );
}

export const KINDS: readonly AlgorithmKind[] = [
  'fixedWindow',
  'slidingLog',
  'slidingWindow',
  'tokenBucket',
  'leakyBucket',
  'gcra',
  'concurrency',
];

export const OPERATIONS: readonly Operation[] = ['consume', 'refund', 'peek', 'reset', 'block', 'unblock'];

/** Why `penalty` is not one (whole ms, 1 <= duration <= max <= MAX_TIMER_MS, period >= 0), or undefined. */
export function penaltyProblem(penalty: unknown): string | undefined {
  const fields = penalty as Partial<Record<keyof Penalty, unknown>> | null;
  if (typeof fields !== 'object' || fields === null) return 'it is not an object';
  const unknown = Object.keys(fields).find((name) => name !== 'duration' && name !== 'period' && name !== 'max');
  if (unknown !== undefined) return `unknown field ${show(unknown)}`;
  const { duration, period, max } = fields;
  const whole = (n: unknown, min: number, most: number) =>
    Number.isSafeInteger(n) && (n as number) >= min && (n as number) <= most;
  if (!whole(duration, 1, MAX_TIMER_MS)) return `duration must be whole ms from 1 to ${MAX_TIMER_MS}`;
  if (!whole(max, duration as number, MAX_TIMER_MS)) return `max must be whole ms from duration to ${MAX_TIMER_MS}`;
  if (!whole(period, 0, Number.MAX_SAFE_INTEGER)) return 'period must be whole ms >= 0';
  return undefined;
}

/** Whether `duration` is a block's length: whole ms from 1 to MAX_TIMER_MS. */
export function isBlockDuration(duration: unknown): duration is number {
  return Number.isSafeInteger(duration) && (duration as number) >= 1 && (duration as number) <= MAX_TIMER_MS;
}

/** Checks one call in the Worker, before anything is sent; mistakes throw as they would anywhere else. */
export function toWireLayer(call: LayerCall): WireLayer {
  const { key, algorithm, cost, shadow, critical, penalty } = call;
  if (typeof key !== 'string' || key === '') {
    throw new InvalidOptionTypeError(`DurableObjectStore: a layer key must be a non-empty string, got ${show(key)}`);
  }
  if (!Number.isSafeInteger(cost) || cost < 0) {
    throw new InvalidCostError(`cost must be an integer >= 0, got ${show(cost)}`);
  }
  const kind = algorithm?.kind;
  if (!KINDS.includes(kind)) {
    throw new InvalidOptionError(`DurableObjectStore: algorithm ${show(kind)} is not one FloodgateObject can build`);
  }
  for (const [name, flag] of [
    ['shadow', shadow],
    ['critical', critical],
  ] as const) {
    if (flag !== undefined && typeof flag !== 'boolean') {
      throw new InvalidOptionTypeError(`DurableObjectStore: a layer's ${name} must be a boolean, got ${show(flag)}`);
    }
  }
  const layer: WireLayer = { key, kind, options: algorithm.options, params: algorithm.params, cost };
  if (shadow === true) layer.shadow = true;
  if (critical === true) layer.critical = true;
  if (penalty !== undefined) {
    const problem = penaltyProblem(penalty);
    if (problem !== undefined) {
      throw new InvalidOptionError(
        `DurableObjectStore: a layer's penalty is refused (${problem}), got ${show(penalty)}`,
      );
    }
    layer.penalty = { duration: penalty.duration, period: penalty.period, max: penalty.max };
  }
  return layer;
}

const NUMBERS = ['limit', 'remaining', 'resetAt', 'retryAfter', 'delay'] as const;

/** The Worker's side: an answer of the wrong shape is a store failure, never a decision. */
export function parseReply(body: unknown, request: WireRequest): LayerOutcome[] {
  const outcomes = (body as Partial<WireReply> | null)?.outcomes;
  const expected = request.layers.length;
  if (!Array.isArray(outcomes) || outcomes.length !== expected) {
    throw new StoreError(`FloodgateObject answered ${request.op} of ${expected} layer(s) with ${show(body)}`);
  }
  for (const outcome of outcomes as unknown[]) {
    const fields = outcome as Record<string, unknown> | null;
    const fine =
      typeof fields === 'object' &&
      fields !== null &&
      typeof fields.allowed === 'boolean' &&
      NUMBERS.every((name) => Number.isSafeInteger(fields[name]));
    if (!fine) throw new StoreError(`FloodgateObject answered ${request.op} with an outcome ${show(outcome)}`);
  }
  return outcomes as LayerOutcome[];
}
