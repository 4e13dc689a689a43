import { show } from '@floodgate/core/store';
import { isBlockDuration, KINDS, OPERATIONS, penaltyProblem } from './protocol';
import type { AlgorithmKind } from '@floodgate/core';
import type { Operation, WireLayer, WireRequest } from './protocol';

const REQUEST_FIELDS = ['op', 'id', 'layers', 'partial', 'now', 'duration'];
const LAYER_FIELDS = ['key', 'kind', 'options', 'params', 'cost', 'shadow', 'critical', 'penalty'];

/**
 * The object's side of the protocol: anything malformed is refused with the reason (a 400), never
 * decided on. Unknown fields are refused too: a Worker on a newer version may mean something by
 * them that this object would silently ignore.
 */
export function parseRequest(body: unknown): WireRequest {
  const request = body as Partial<Record<keyof WireRequest, unknown>> | null;
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new TypeError(`expected an object, got ${show(body)}`);
  }
  refuseUnknown('the request', request, REQUEST_FIELDS);
  const { op, id, layers, partial, now, duration } = request;
  if (!OPERATIONS.includes(op as Operation)) throw new TypeError(`unknown operation ${show(op)}`);
  if (typeof id !== 'string') throw new TypeError(`id must be a string, got ${show(id)}`);
  if (partial !== undefined && (typeof partial !== 'boolean' || op !== 'consume')) {
    throw new TypeError(`partial must be a boolean on a consume, got ${show(partial)} on ${op as string}`);
  }
  if (now !== undefined && !(Number.isSafeInteger(now) && (now as number) >= 0)) {
    throw new TypeError(`now must be integer epoch ms >= 0, got ${show(now)}`);
  }
  if (op === 'block' ? !isBlockDuration(duration) : duration !== undefined) {
    throw new TypeError(`duration must be whole ms >= 1 on a block, and only there, got ${show(duration)} on ${op}`);
  }
  if (!Array.isArray(layers)) throw new TypeError(`layers must be an array, got ${show(layers)}`);
  for (const layer of layers as unknown[]) checkLayer(layer);
  return request as WireRequest;
}

function checkLayer(value: unknown): void {
  const layer = value as Partial<Record<keyof WireLayer, unknown>> | null;
  if (typeof layer !== 'object' || layer === null) throw new TypeError(`a layer must be an object, got ${show(value)}`);
  refuseUnknown('a layer', layer, LAYER_FIELDS);
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
  // Sent only when true: a false or any other value is not what a DurableObjectStore sends.
  if (layer.shadow !== undefined && layer.shadow !== true) throw new TypeError(`bad shadow ${show(layer.shadow)}`);
  if (layer.critical !== undefined && layer.critical !== true) {
    throw new TypeError(`bad critical ${show(layer.critical)}`);
  }
  if (layer.penalty !== undefined) {
    const problem = penaltyProblem(layer.penalty);
    if (problem !== undefined) throw new TypeError(`bad penalty ${show(layer.penalty)}: ${problem}`);
  }
}

function refuseUnknown(what: string, fields: object, known: readonly string[]): void {
  const unknown = Object.keys(fields).find((name) => !known.includes(name));
  if (unknown !== undefined) throw new TypeError(`${what} has an unknown field ${show(unknown)}`);
}
