import { consumeLayers, peekLayers, quotaSpent } from '@floodgate/core/store';
import { BLOCK, NORMAL_BLOCK, STATE, STRIKES } from './entry-table';
import { StoredLayers } from './stored-layers';
import { waitsForPending, untilSettled } from './settling';
import type { LayerCall, LayerOutcome, Outcome } from '@floodgate/core/store';
import type { AlgorithmCache } from './algorithms';
import type { EntryTable } from './entry-table';
import type { PendingCharges } from './pending-charges';
import type { WireRequest } from './protocol';

/** Where one request is applied: the object's table, algorithms and pending charges, at one instant. */
export interface ObjectState {
  table: EntryTable;
  algorithms: AlgorithmCache;
  pending: PendingCharges;
  /** The decisions' clock: the store's `clock` reading when it sent one, else `objectNow`. */
  now: number;
  /** The object's own clock, which its alarm sweeps by. */
  objectNow: number;
}

/** What one request did to the object: its outcomes, and when the alarm must sweep what it wrote (0: nothing written). */
export interface Applied {
  outcomes: LayerOutcome[];
  latestSweep: number;
}

const withoutState = ({ state: _state, ...outcome }: Outcome<unknown>): LayerOutcome => outcome;

/**
 * Runs one request against the object, synchronously, with MemoryStore's semantics (core's
 * consumeLayers and peekLayers on the object's storage): consume, peek, refund, reset, block and
 * unblock. Every operation but consume and peek answers each layer's numbers at cost 0 afterwards.
 */
export function apply(request: WireRequest, object: ObjectState): Applied {
  const { now, algorithms } = object;
  const calls: LayerCall[] = request.layers.map((layer) => ({
    key: layer.key,
    algorithm: algorithms.get(layer),
    cost: layer.cost,
    shadow: layer.shadow,
    critical: layer.critical,
    penalty: layer.penalty,
  }));
  const states = new StoredLayers(object.table, now, object.objectNow);
  let outcomes: Outcome<unknown>[];
  if (request.op === 'consume') outcomes = consume(request, calls, states, object);
  else if (request.op === 'peek') outcomes = peekLayers(states, calls, request.id, now);
  else {
    change(request, calls, states, object);
    outcomes = peekLayers(
      states,
      calls.map((call) => ({ ...call, cost: 0 })),
      request.id,
      now,
    );
  }
  return { outcomes: outcomes.map(withoutState), latestSweep: states.latestSweep };
}

/**
 * consumeLayers, with what only a store split over objects needs (see PendingCharges): a layer
 * denied only by charges still pending elsewhere is given a wait until they settle rather than its
 * full retryAfter, and no penalty (its client may be admitted a moment later); and a partial
 * request's charges are recorded as pending.
 */
function consume(request: WireRequest, calls: LayerCall[], states: StoredLayers, object: ObjectState) {
  const { pending, now } = object;
  const settling = calls.map((call) => waitsForPending(call, states, pending, request.id, now));
  const decided = consumeLayers(
    states,
    settling.includes(true) ? calls.map((call, i) => (settling[i] ? { ...call, penalty: undefined } : call)) : calls,
    request.id,
    now,
  );
  const allowed = calls.every((call, i) => call.shadow === true || (decided[i] as Outcome<unknown>).allowed);
  for (let i = 0; i < calls.length; i++) {
    const { key, cost } = calls[i] as LayerCall;
    const outcome = decided[i] as Outcome<unknown>;
    if (!outcome.allowed && settling[i]) decided[i] = untilSettled(outcome, pending.of(key, now), now);
    else if (allowed && outcome.allowed && request.partial === true && cost > 0)
      pending.add(key, request.id, cost, now);
  }
  return decided;
}

/** refund, reset, block, unblock: what each does to every layer's key. */
function change(request: WireRequest, calls: LayerCall[], states: StoredLayers, object: ObjectState): void {
  const { now, pending } = object;
  for (const call of calls) {
    const { key, algorithm, cost } = call;
    switch (request.op) {
      case 'refund': {
        pending.settle(key, request.id);
        const state = states.state(key);
        if (state === undefined) break;
        const refunded = algorithm.refund(state, now, cost, request.id);
        if (refunded !== undefined) states.replaceState(key, refunded as object);
        break;
      }
      case 'reset':
        pending.forget(key);
        states.delete(key, [STATE, BLOCK, NORMAL_BLOCK, STRIKES]);
        break;
      case 'block': {
        const duration = request.duration as number;
        states.block(key, now + duration, duration);
        break;
      }
      case 'unblock':
        states.delete(key, [BLOCK, NORMAL_BLOCK, STRIKES]);
        // A penalised layer's spent quota starts afresh, as in MemoryStore: the next request must not be penalised again.
        if (quotaSpent(call, states.state(key), now)) {
          pending.forget(key);
          states.delete(key, [STATE]);
        }
        break;
    }
  }
}
