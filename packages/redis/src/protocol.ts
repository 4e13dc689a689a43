import { InvalidCostError, InvalidOptionError, InvalidOptionTypeError, StoreError } from '@floodgate/core';
import { show, usableLimit } from '@floodgate/core/store';
import { LUA_ALGORITHMS } from './generated/lua';
import { storeFailure } from './store-failure';
import type { Algorithm } from '@floodgate/core';
import type { LayerCall, LayerOutcome, Penalty } from '@floodgate/core/store';

/**
 * One layer ready for the wire: its full key, its algorithm's kind and params, the cost, and what
 * its rule asks (flags: 1 shadow, 2 critical; the penalty as base, period, max in ms).
 */
export interface WireLayer {
  key: string;
  kind: string;
  /** The quota the request may use: the algorithm's limit, without the reserve unless critical. */
  limit: number;
  cost: number;
  params: readonly number[];
  shadow: boolean;
  flags: number;
  penalty: readonly [number, number, number] | undefined;
  /** Where the key's strikes are counted, for a layer with a penalty and every layer of a reset or unblock. */
  strikes: string | undefined;
}

/** What a request asks of its layers; see lua/composer.lua for each. */
export type WireOp = 'consume' | 'refund' | 'peek' | 'reset' | 'block' | 'unblock';

const OP_LETTERS: Record<WireOp, string> = {
  consume: 'c',
  refund: 'r',
  peek: 'p',
  reset: 'x',
  block: 'b',
  unblock: 'u',
};

/** One request of a script call, under its request id. For `block`, each layer's cost is the block's length in ms. */
export interface WireRequest {
  op: WireOp;
  id: string;
  layers: readonly WireLayer[];
}

/** What the composer answered for one request. */
export type WireAnswer = { ok: true; outcomes: LayerOutcome[]; reset: boolean } | { ok: false; error: StoreError };

/**
 * What RedisStore puts before each key: its `prefix` and a `:`, or nothing for no prefix. The
 * separator keeps keys apart for any two pairs of store and limiter prefixes: a limiter key
 * (`fg:ip:tag:{id}`) has exactly three `:` before its `{`, and neither the limiter prefix nor a
 * rule name nor a tag can hold one, so the store prefix is whatever comes before the fourth `:`
 * from the brace. Without it, `'shop'` + `'fg:…'` and `''` + `'shopfg:…'` were one key.
 */
export function keyPrefixOf(prefix: string): string {
  return prefix === '' ? '' : `${prefix}:`;
}

/**
 * Checks every number in TypeScript before it reaches Lua: a NaN compares false there and would
 * silently allow, and anything past 2^53 is no longer an exact integer in a Lua double.
 */
export function toWireLayer(call: LayerCall, keyPrefix: string, op: WireOp = 'consume'): WireLayer {
  const { key, algorithm, cost } = call;
  if (typeof key !== 'string' || key === '') {
    throw new InvalidOptionTypeError(`RedisStore: a layer key must be a non-empty string, got ${show(key)}`);
  }
  if (!Number.isSafeInteger(cost) || cost < 0) {
    throw new InvalidCostError(`cost must be an integer >= 0, got ${show(cost)}`);
  }
  checkAlgorithm(algorithm);
  const shadow = call.shadow === true;
  const flags = (shadow ? 1 : 0) + (call.critical === true ? 2 : 0);
  const penalty = call.penalty === undefined ? undefined : penaltyArgs(call.penalty);
  const critical = call.critical === true;
  const limit = usableLimit(algorithm, critical);
  const full = keyPrefix + key;
  const strikes = penalty !== undefined || op === 'reset' || op === 'unblock' ? strikesKey(full) : undefined;
  return { key: full, kind: algorithm.kind, limit, cost, params: algorithm.params, shadow, flags, penalty, strikes };
}

function penaltyArgs(penalty: Penalty): [number, number, number] {
  const { duration, period, max } = penalty;
  const valid = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  if (!valid(duration) || duration < 1 || !valid(period) || !valid(max) || max < duration) {
    throw new InvalidOptionError(
      `RedisStore: a penalty must be whole ms with 1 <= duration <= max, got ${show(penalty)}`,
    );
  }
  return [duration, period, max];
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
  // Each distinct spec (algorithm, flags, penalty) is sent once; layers name it by number. The
  // usual layer (no flags, no penalty) is known by its params array, without building a string.
  const specs = new Map<unknown, number>();
  const specArgs: (string | number)[] = [];
  const requestArgs: (string | number)[] = [];
  // A request shaped like the last one written in full (op, id, specs, costs) is sent as a repeat:
  // a batch of one rule over many keys costs two arguments, not five per request.
  let last: WireRequest | undefined;
  const lastSpecs: number[] = [];
  const specsNow: number[] = [];
  let repeats = 0;
  for (const request of requests) {
    if (typeof request.id !== 'string') {
      throw new InvalidOptionTypeError(`RedisStore: requestId must be a string, got ${show(request.id)}`);
    }
    const layers = request.layers;
    let same =
      last !== undefined && request.op === last.op && request.id === last.id && layers.length === last.layers.length;
    for (let i = 0; i < layers.length; i++) {
      const layer = layers[i] as WireLayer;
      const { flags, penalty } = layer;
      const identity =
        flags === 0 && penalty === undefined ? layer.params : `${layer.kind}|${layer.params}|${flags}|${penalty}`;
      let spec = specs.get(identity);
      if (spec === undefined) {
        spec = specs.size + 1;
        specs.set(identity, spec);
        specArgs.push(layer.kind, flags);
        if (penalty === undefined) specArgs.push(0, 0, 0);
        else specArgs.push(penalty[0], penalty[1], penalty[2]);
        for (const param of layer.params) specArgs.push(param);
      }
      keys.push(layer.key);
      if (layer.strikes !== undefined) keys.push(layer.strikes);
      specsNow[i] = spec;
      if (same && (lastSpecs[i] !== spec || (last as WireRequest).layers[i]?.cost !== layer.cost)) same = false;
    }
    if (same) {
      repeats++;
      continue;
    }
    if (repeats > 0) requestArgs.push('=', repeats);
    repeats = 0;
    last = request;
    requestArgs.push(OP_LETTERS[request.op], request.id, layers.length);
    for (let i = 0; i < layers.length; i++) {
      lastSpecs[i] = specsNow[i] as number;
      requestArgs.push(lastSpecs[i] as number, (layers[i] as WireLayer).cost);
    }
  }
  if (repeats > 0) requestArgs.push('=', repeats);
  const args: (string | number)[] = [now, specs.size];
  for (const arg of specArgs) args.push(arg);
  for (const arg of requestArgs) args.push(arg);
  return { keys, args };
}

/**
 * `{ now, then per request: status and 3 integers per layer, or -1 and a message }`, checked for
 * shape; one answer per request, in order. A request whose numbers cannot be used fails alone: the
 * others of the call keep their answers. Only a reply whose framing is lost fails the whole call.
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
      answers[r] = { ok: false, error: storeFailure(request.op, String(reply[at + 1]), request.layers[0]?.key) };
      at += 2;
      continue;
    }
    if (status < 0 || status > 3) throw unexpected(`request status ${status}`);
    try {
      answers[r] = { ok: true, outcomes: parseOutcomes(reply, at, request.layers, status), reset: status >= 2 };
    } catch (error) {
      answers[r] = { ok: false, error: error as StoreError };
    }
    at += 1 + 3 * request.layers.length;
  }
  if (at !== reply.length) throw unexpected(`expected ${at} values, got ${reply.length}`);
  return { now, answers };
}

/** The layers' outcomes of one request whose status is at `at`. */
function parseOutcomes(reply: unknown[], at: number, layers: readonly WireLayer[], status: number): LayerOutcome[] {
  const outcomes: LayerOutcome[] = new Array(layers.length);
  for (let i = 0; i < layers.length; i++) {
    const base = at + 1 + 3 * i;
    const wait = integer(reply[base + 2]);
    outcomes[i] = {
      allowed: wait >= 0,
      limit: (layers[i] as WireLayer).limit,
      remaining: integer(reply[base]),
      resetAt: integer(reply[base + 1]),
      retryAfter: wait >= 0 ? 0 : -wait - 1,
      delay: Math.max(wait, 0),
    };
  }
  if (((status & 1) === 1) !== enforcedAllow(layers, outcomes)) {
    throw unexpected(`request status ${status} disagrees with its layers`);
  }
  return outcomes;
}

/**
 * Where a key's strikes are counted: beside it, on the same Cluster slot. A key with a hash tag
 * keeps it (`fg:ip:fw.x:{a}!p`); a key without braces becomes the tag (`{key}!p`).
 */
export function strikesKey(key: string): string {
  const open = key.indexOf('{');
  const close = open === -1 ? -1 : key.indexOf('}', open + 1);
  if (close > open + 1) return `${key}!p`;
  if (open === -1 && !key.includes('}')) return `{${key}}!p`;
  throw new InvalidOptionError(
    `RedisStore: a penalty, reset or unblock needs a layer key with a hash tag, or no braces at all, got ${show(key)}`,
  );
}

/** True when every layer that is not a shadow allows: the request passes. */
export function enforcedAllow(layers: readonly WireLayer[], outcomes: readonly LayerOutcome[]): boolean {
  for (let i = 0; i < outcomes.length; i++) {
    if (!(outcomes[i] as LayerOutcome).allowed && !(layers[i] as WireLayer).shadow) return false;
  }
  return true;
}

function integer(value: unknown): number {
  if (!Number.isSafeInteger(value)) throw unexpected(`${show(value)} is not a safe integer`);
  return value as number;
}

function unexpected(what: string): StoreError {
  return new StoreError(`unexpected reply from Redis: ${what}`);
}
