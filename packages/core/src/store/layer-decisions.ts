import { usableLimit } from '../algorithms/reserve';
import { ttlOf } from '../algorithms/types';
import type { Outcome } from '../algorithms/types';
import type { LayerCall, Penalty } from './store';

/**
 * What a store keeps for the decisions below, read and written synchronously: each key's
 * algorithm state, its block, and its strikes (penalties in a row). MemoryStore keeps them in LRU
 * caches; a Durable Object in its storage. Every TTL is in ms, at least 1.
 */
export interface LayerStates {
  state(key: string): unknown;
  setState(key: string, state: object, ttl: number): void;
  /**
   * When the key's block ends for a request of this priority (epoch ms), or undefined when it has
   * none. A critical request sees only the blocks that hold every request; a normal one also sees
   * a block that holds normal requests only (see `block`), and the later of the two counts.
   */
  blockedUntil(key: string, critical: boolean): number | undefined;
  /** Blocks the key until `until`: every request, or (`normalOnly`) normal ones, leaving critical ones to the algorithm. */
  block(key: string, until: number, ttl: number, normalOnly?: boolean): void;
  /** The key's strikes: how many penalties in a row, and when the last one was given. */
  strikes(key: string): { count: number; at: number } | undefined;
  /** Records the key's strikes; they may be forgotten `ttl` ms later. */
  setStrikes(key: string, count: number, at: number, ttl: number): void;
}

/**
 * A store's consume, on any LayerStates (the Lua composer is its twin). All or nothing over the
 * layers that are not shadows: if every one of them allows, every layer that allows is charged;
 * otherwise nothing is, the layers that would have allowed report their uncharged numbers, and each
 * denying layer with a penalty whose key was not blocked already is blocked. The outcomes still
 * carry the state (callers read the LayerOutcome fields).
 */
export function consumeLayers(
  states: LayerStates,
  calls: readonly LayerCall[],
  requestId: string,
  now: number,
): Outcome<unknown>[] {
  const decided = peekLayers(states, calls, requestId, now);
  let allowed = true;
  for (let i = 0; i < calls.length; i++) {
    if (!(decided[i] as Outcome<unknown>).allowed && (calls[i] as LayerCall).shadow !== true) allowed = false;
  }
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as LayerCall;
    const outcome = decided[i] as Outcome<unknown>;
    if (allowed) {
      if (outcome.allowed && outcome.state !== undefined) {
        states.setState(call.key, outcome.state as object, ttlOf(outcome, now));
      }
    } else if (outcome.allowed) {
      decided[i] = decideLayer(states, call, requestId, now, 0);
    } else if (call.penalty !== undefined && call.shadow !== true && !blocked(states, call, now)) {
      // The block lasts at least until the algorithm itself would admit again: a client that
      // waits out the Retry-After it is given is admitted, never penalised again for it.
      const normalOnly = reserveWouldAdmit(states, call, requestId, now);
      const until = penalize(states, call.key, call.penalty, now, now + outcome.retryAfter, normalOnly);
      decided[i] = blockedOutcome(call, until, now);
    }
  }
  return decided;
}

/** Each layer's outcome at its cost, writing nothing. */
export function peekLayers(
  states: LayerStates,
  calls: readonly LayerCall[],
  requestId: string,
  now: number,
): Outcome<unknown>[] {
  const decided: Outcome<unknown>[] = new Array(calls.length);
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as LayerCall;
    decided[i] = decideLayer(states, call, requestId, now, call.cost);
  }
  return decided;
}

function decideLayer(
  states: LayerStates,
  call: LayerCall,
  requestId: string,
  now: number,
  cost: number,
): Outcome<unknown> {
  const critical = call.critical === true;
  const until = states.blockedUntil(call.key, critical);
  if (until !== undefined && until > now) return blockedOutcome(call, until, now);
  return call.algorithm.decide(states.state(call.key), now, cost, requestId, critical);
}

function blocked(states: LayerStates, call: LayerCall, now: number): boolean {
  const until = states.blockedUntil(call.key, call.critical === true);
  return until !== undefined && until > now;
}

/**
 * A normal request denied while the reserve still has room (a critical request of cost 1 would be
 * admitted): its penalty must not shut out the critical requests the reserve is kept for.
 */
function reserveWouldAdmit(states: LayerStates, call: LayerCall, requestId: string, now: number): boolean {
  if (call.critical === true || call.algorithm.reserve === 0) return false;
  return call.algorithm.decide(states.state(call.key), now, 1, requestId, true).allowed;
}

/**
 * Whether `unblock` must start the key's quota afresh: its layer has a penalty and the quota is
 * spent (a normal request of cost 1 would be denied by the algorithm itself, blocks aside), so the
 * next request would be denied and penalised again. Without a penalty, lifting the block is all
 * there is to forgive (a shared rule, which cannot have one, never gets a fresh quota this way). A
 * concurrency layer's slots free themselves as requests end: never spent.
 */
export function quotaSpent(call: LayerCall, state: unknown, now: number): boolean {
  if (state === undefined || call.penalty === undefined || call.algorithm.kind === 'concurrency') return false;
  return !call.algorithm.decide(state, now, 1, '', false).allowed;
}

/**
 * Blocks `key` for its penalty, doubled per earlier strike within the period (at most `max`), and
 * at least until `atLeastUntil` (for normal requests only, with `normalOnly`); returns when the block ends.
 */
function penalize(
  states: LayerStates,
  key: string,
  penalty: Penalty,
  now: number,
  atLeastUntil: number,
  normalOnly: boolean,
): number {
  const { duration, period, max } = penalty;
  let block = duration;
  if (period > 0) {
    // A penalty less than `period` after the previous one is a repeat (a clock that went back too).
    const last = states.strikes(key);
    const strikes = last !== undefined && now - last.at < period ? last.count + 1 : 1;
    states.setStrikes(key, strikes, now, period);
    for (let strike = 1; strike < strikes && block < max; strike++) block *= 2;
  }
  const until = Math.max(now + Math.min(block, max), atLeastUntil);
  states.block(key, until, until - now, normalOnly);
  return until;
}

/** A blocked key's answer, the same from the penalty on: nothing left until the block ends. */
function blockedOutcome(call: LayerCall, until: number, now: number): Outcome<unknown> {
  return {
    allowed: false,
    state: undefined,
    limit: usableLimit(call.algorithm, call.critical),
    remaining: 0,
    resetAt: until,
    retryAfter: until - now,
    delay: 0,
  };
}
