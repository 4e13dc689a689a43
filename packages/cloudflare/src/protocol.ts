import { InvalidCostError, InvalidOptionError, InvalidOptionTypeError, StoreError } from '@floodgate/core';
import { show } from '@floodgate/core/store';
import type { AlgorithmKind } from '@floodgate/core';
import type { LayerCall, LayerOutcome } from '@floodgate/core/store';

/**
 * The JSON a DurableObjectStore POSTs to a FloodgateObject, and what comes back. Algorithms travel
 * as their factory's name and options, and the object builds the same algorithm from them; `params`
 * go along so that an object running another version of the code, which would build something
 * else, refuses instead of deciding differently.
 */
export type Operation = 'consume' | 'refund' | 'peek';

export interface WireLayer {
  key: string;
  kind: AlgorithmKind;
  options: Readonly<Record<string, unknown>>;
  params: readonly number[];
  cost: number;
}

export interface WireRequest {
  op: Operation;
  /** The request id sliding log entries and concurrency leases are kept under. */
  id: string;
  layers: readonly WireLayer[];
  /** A consume of some of a request's layers, the others going to other objects (see PendingCharges). */
  partial?: boolean;
}

/** One outcome per layer; after a refund, each layer's numbers as a peek would see them. */
export interface WireReply {
  outcomes: LayerOutcome[];
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

const OPERATIONS: readonly Operation[] = ['consume', 'refund', 'peek'];

/** Checks one call in the Worker, before anything is sent; mistakes throw as they would anywhere else. */
export function toWireLayer(call: LayerCall): WireLayer {
  const { key, algorithm, cost } = call;
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
  return { key, kind, options: algorithm.options, params: algorithm.params, cost };
}

/** The object's side: anything malformed is refused with the reason (a 400). */
export function parseRequest(body: unknown): WireRequest {
  const request = body as Partial<WireRequest> | null;
  if (typeof request !== 'object' || request === null) throw new TypeError(`expected an object, got ${show(body)}`);
  const { op, id, layers, partial } = request;
  if (!OPERATIONS.includes(op as Operation)) throw new TypeError(`unknown operation ${show(op)}`);
  if (typeof id !== 'string') throw new TypeError(`id must be a string, got ${show(id)}`);
  if (partial !== undefined && typeof partial !== 'boolean') throw new TypeError(`bad partial ${show(partial)}`);
  if (!Array.isArray(layers)) throw new TypeError(`layers must be an array, got ${show(layers)}`);
  for (const layer of layers as unknown[]) checkLayer(layer);
  return request as WireRequest;
}

function checkLayer(value: unknown): void {
  const layer = value as Partial<WireLayer> | null;
  if (typeof layer !== 'object' || layer === null) throw new TypeError(`a layer must be an object, got ${show(value)}`);
  if (typeof layer.key !== 'string' || layer.key === '') throw new TypeError(`bad layer key ${show(layer.key)}`);
  if (!KINDS.includes(layer.kind as AlgorithmKind)) throw new TypeError(`unknown algorithm ${show(layer.kind)}`);
  if (typeof layer.options !== 'object' || layer.options === null) {
    throw new TypeError(`bad options ${show(layer.options)}`);
  }
  if (!Array.isArray(layer.params) || !layer.params.every(Number.isSafeInteger)) {
    throw new TypeError(`bad params ${show(layer.params)}`);
  }
  if (!Number.isSafeInteger(layer.cost) || (layer.cost as number) < 0) {
    throw new TypeError(`bad cost ${show(layer.cost)}`);
  }
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
