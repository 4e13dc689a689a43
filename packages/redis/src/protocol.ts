import { InvalidCostError, InvalidOptionError, InvalidOptionTypeError, StoreError } from '@floodgate/core';
import { show } from '@floodgate/core/store';
import { LUA_ALGORITHMS } from './generated/lua';
import type { Algorithm } from '@floodgate/core';
import type { LayerCall, LayerOutcome } from '@floodgate/core/store';

/** One layer ready for the wire: its full key, its algorithm's kind and params, and the cost. */
export interface WireLayer {
  key: string;
  kind: string;
  cost: number;
  params: readonly number[];
}

/** One request of a script call: consume or refund, under its request id. */
export interface WireRequest {
  op: 'consume' | 'refund';
  id: string;
  layers: readonly WireLayer[];
}

/** What the composer answered for one request. */
export type WireAnswer = { ok: true; outcomes: LayerOutcome[]; reset: boolean } | { ok: false; error: StoreError };

/**
 * Checks every number in TypeScript before it reaches Lua: a NaN compares false there and would
 * silently allow, and anything past 2^53 is no longer an exact integer in a Lua double.
 */
export function toWireLayer(call: LayerCall, prefix: string): WireLayer {
  const { key, algorithm, cost } = call;
  if (typeof key !== 'string' || key === '') {
    throw new InvalidOptionTypeError(`RedisStore: a layer key must be a non-empty string, got ${show(key)}`);
  }
  if (!Number.isSafeInteger(cost) || cost < 0) {
    throw new InvalidCostError(`cost must be an integer >= 0, got ${show(cost)}`);
  }
  checkAlgorithm(algorithm);
  return { key: prefix + key, kind: algorithm.kind, cost, params: algorithm.params };
}

function checkAlgorithm(algorithm: Algorithm): void {
  const kind = algorithm?.kind;
  const nparams = LUA_ALGORITHMS[kind];
  if (nparams === undefined) {
    throw new InvalidOptionError(`RedisStore: algorithm ${show(kind)} has no Lua twin in this version`);
  }
  const params = algorithm.params;
  if (!Array.isArray(params) || params.length !== nparams) {
    throw new InvalidOptionError(`RedisStore: ${kind} must have ${nparams} params, got ${show(params)}`);
  }
  for (let index = 0; index < params.length; index++) {
    if (!Number.isSafeInteger(params[index])) {
      throw new InvalidOptionError(
        `RedisStore: ${kind} param ${index + 1} must be a safe integer, got ${show(params[index])}`,
      );
    }
  }
}

/** A clock reading from this process, checked before it becomes the script's `now`. */
export function nowArgument(now: unknown): number {
  if (typeof now !== 'number' || !Number.isSafeInteger(now) || now < 0) {
    throw new InvalidOptionError(`RedisStore.clock must return integer epoch milliseconds >= 0, got ${show(now)}`);
  }
  return now;
}

/** KEYS and ARGV of one composer call over `requests`, in their order (see lua/composer.lua). */
export function scriptCall(
  now: string | number,
  requests: readonly WireRequest[],
): { keys: string[]; args: (string | number)[] } {
  const keys: string[] = [];
  // Each distinct algorithm is sent once, as a spec; layers name it by number.
  const specs = new Map<readonly number[], number>();
  const specArgs: (string | number)[] = [];
  const requestArgs: (string | number)[] = [];
  for (const request of requests) {
    if (typeof request.id !== 'string') {
      throw new InvalidOptionTypeError(`RedisStore: requestId must be a string, got ${show(request.id)}`);
    }
    const n = request.layers.length;
    requestArgs.push(request.op === 'refund' ? -n : n, request.id);
    for (const layer of request.layers) {
      let spec = specs.get(layer.params);
      if (spec === undefined) {
        spec = specs.size + 1;
        specs.set(layer.params, spec);
        specArgs.push(layer.kind);
        for (const param of layer.params) specArgs.push(param);
      }
      keys.push(layer.key);
      requestArgs.push(spec, layer.cost);
    }
  }
  const args: (string | number)[] = [now, specs.size];
  for (const arg of specArgs) args.push(arg);
  for (const arg of requestArgs) args.push(arg);
  return { keys, args };
}

/**
 * `{ now, then per request: status and 3 integers per layer, or -1 and a message }`, checked for
 * shape; one answer per request, in order. A layer's limit is its first param.
 */
export function parseReply(reply: unknown, requests: readonly WireRequest[]): { now: number; answers: WireAnswer[] } {
  if (!Array.isArray(reply) || reply.length < 1) throw unexpected(`expected an array, got ${show(reply)}`);
  const now = integer(reply[0]);
  const answers: WireAnswer[] = new Array(requests.length);
  let at = 1;
  for (let r = 0; r < requests.length; r++) {
    const request = requests[r] as WireRequest;
    const status = integer(reply[at]);
    if (status === -1) {
      answers[r] = { ok: false, error: new StoreError(`Redis ${request.op} failed: ${String(reply[at + 1])}`) };
      at += 2;
      continue;
    }
    if (status < 0 || status > 3) throw unexpected(`request status ${status}`);
    const layers = request.layers;
    const outcomes: LayerOutcome[] = new Array(layers.length);
    for (let i = 0; i < layers.length; i++) {
      const base = at + 1 + 3 * i;
      const wait = integer(reply[base + 2]);
      outcomes[i] = {
        allowed: wait >= 0,
        limit: (layers[i] as WireLayer).params[0] as number,
        remaining: integer(reply[base]),
        resetAt: integer(reply[base + 1]),
        retryAfter: wait >= 0 ? 0 : -wait - 1,
        delay: Math.max(wait, 0),
      };
    }
    if (((status & 1) === 1) !== outcomes.every((outcome) => outcome.allowed)) {
      throw unexpected(`request status ${status} disagrees with its layers`);
    }
    answers[r] = { ok: true, outcomes, reset: status >= 2 };
    at += 1 + 3 * layers.length;
  }
  if (at !== reply.length) throw unexpected(`expected ${at} values, got ${reply.length}`);
  return { now, answers };
}
function integer(value: unknown): number {
  if (!Number.isSafeInteger(value)) throw unexpected(`${show(value)} is not a safe integer`);
  return value as number;
}

function unexpected(what: string): StoreError {
  return new StoreError(`unexpected reply from Redis: ${what}`);
}
