import { InvalidCostError, InvalidOptionError, InvalidOptionTypeError, StoreError } from '@floodgate/core';
import { LUA_ALGORITHMS } from './generated/lua';
import { show } from '@floodgate/core';
import type { LayerCall, LayerOutcome } from '@floodgate/core';

/** One layer ready for the wire: full key, then kind, cost and params as the composer reads them. */
export interface WireLayer {
  key: string;
  args: (string | number)[];
}

/**
 * Checks every number in TypeScript before it reaches Lua: a NaN compares false there and would
 * silently allow, and anything past 2^53 is no longer an exact integer in a Lua double.
 */
export function toWireLayer(call: LayerCall, prefix: string): WireLayer {
  const { key, algorithm, cost } = call;
  if (typeof key !== 'string' || key === '') {
    throw new InvalidOptionTypeError(`RedisStore: a layer key must be a non-empty string, got ${show(key)}`);
  }
  const kind = algorithm?.kind;
  const nparams = LUA_ALGORITHMS[kind];
  if (nparams === undefined) {
    throw new InvalidOptionError(`RedisStore: algorithm ${show(kind)} has no Lua twin in this version`);
  }
  if (!Number.isSafeInteger(cost) || cost < 0) {
    throw new InvalidCostError(`cost must be an integer >= 0, got ${show(cost)}`);
  }
  const params = algorithm.params;
  if (!Array.isArray(params) || params.length !== nparams) {
    throw new InvalidOptionError(`RedisStore: ${kind} must have ${nparams} params, got ${show(params)}`);
  }
  for (const [index, value] of params.entries()) {
    if (!Number.isSafeInteger(value)) {
      throw new InvalidOptionError(`RedisStore: ${kind} param ${index + 1} must be a safe integer, got ${show(value)}`);
    }
  }
  return { key: prefix + key, args: [kind, cost, ...params] };
}

/** A clock reading from this process, checked before it becomes the script's `now`. */
export function nowArgument(now: unknown): number {
  if (typeof now !== 'number' || !Number.isSafeInteger(now) || now < 0) {
    throw new InvalidOptionError(`RedisStore.clock must return integer epoch milliseconds >= 0, got ${show(now)}`);
  }
  return now;
}

export function scriptArguments(
  op: 'consume' | 'refund',
  now: string | number,
  requestId: string,
  layers: readonly WireLayer[],
): (string | number)[] {
  if (typeof requestId !== 'string') {
    throw new InvalidOptionTypeError(`RedisStore: requestId must be a string, got ${show(requestId)}`);
  }
  return [op, now, requestId, layers.length, ...layers.flatMap((layer) => layer.args)];
}

/** `{ now, all_allowed, then 6 integers per layer }`, checked for shape. */
export function parseConsumeReply(reply: unknown, layers: number): { now: number; outcomes: LayerOutcome[] } {
  const values = integers(reply, 2 + 6 * layers);
  const outcomes: LayerOutcome[] = [];
  for (let i = 0; i < layers; i++) {
    const [allowed, limit, remaining, resetAt, retryAfter, delay] = values.slice(2 + 6 * i, 8 + 6 * i) as number[];
    if (allowed !== 0 && allowed !== 1) throw new StoreError(`unexpected reply from Redis: allowed is ${allowed}`);
    outcomes.push({
      allowed: allowed === 1,
      limit: limit as number,
      remaining: remaining as number,
      resetAt: resetAt as number,
      retryAfter: retryAfter as number,
      delay: delay as number,
    });
  }
  return { now: values[0] as number, outcomes };
}

function integers(reply: unknown, length: number): number[] {
  if (!Array.isArray(reply) || reply.length !== length) {
    throw new StoreError(
      `unexpected reply from Redis: expected ${length} integers, got ${Array.isArray(reply) ? `${reply.length} values` : show(reply)}`,
    );
  }
  for (const value of reply) {
    if (!Number.isSafeInteger(value)) {
      throw new StoreError(`unexpected reply from Redis: ${show(value)} is not a safe integer`);
    }
  }
  return reply as number[];
}
