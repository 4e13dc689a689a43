import { SETTLE_MS } from './pending-charges';
import type { Algorithm } from '@floodgate/core';
import type { LayerOutcome, Outcome } from '@floodgate/core/store';
import type { AlgorithmCache } from './algorithms';
import type { PendingCharges } from './pending-charges';
import type { WireRequest } from './protocol';
import type { StateTable } from './state-table';

/** Where one request is applied: the object's table, algorithms and pending charges, at one instant. */
export interface ObjectState {
  table: StateTable;
  algorithms: AlgorithmCache;
  pending: PendingCharges;
  now: number;
}

/** What one request did to the object: its outcomes, and the latest expiry it wrote (0 for none). */
export interface Applied {
  outcomes: LayerOutcome[];
  latestExpiry: number;
}

interface Layer {
  key: string;
  cost: number;
  algorithm: Algorithm;
}

const withoutState = ({ state: _state, ...outcome }: Outcome<unknown>): LayerOutcome => outcome;

/**
 * Runs one request against the object, synchronously: MemoryStore's consume (every layer decided,
 * all charged only if all allow, a layer that allowed reported uncharged when another denied), its
 * refund (the expiry kept; each layer then reported as a peek would see it), or a peek (a cost-0
 * decision that writes nothing).
 */
export function apply(request: WireRequest, object: ObjectState): Applied {
  const { table, algorithms, now } = object;
  const layers: Layer[] = request.layers.map((layer) => ({ ...layer, algorithm: algorithms.get(layer) }));
  const states = layers.map(({ key }) => table.get(key, now));
  if (request.op === 'refund') return { outcomes: refund(request, layers, states, object), latestExpiry: 0 };
  const peek = request.op === 'peek';
  const decided = layers.map(({ algorithm, cost }, i) => algorithm.decide(states[i], now, peek ? 0 : cost, request.id));
  if (peek) return { outcomes: decided.map(withoutState), latestExpiry: 0 };
  const allowed = decided.every((outcome) => outcome.allowed);
  let latestExpiry = 0;
  for (let i = 0; i < layers.length; i++) {
    const { key, algorithm, cost } = layers[i] as Layer;
    const outcome = decided[i] as Outcome<unknown>;
    if (!allowed) {
      decided[i] = outcome.allowed
        ? algorithm.decide(states[i], now, 0, request.id)
        : untilSettled(outcome, layers[i] as Layer, states[i], request.id, object);
      continue;
    }
    if (request.partial === true && cost > 0) object.pending.add(key, request.id, cost, now);
    if (outcome.state === undefined) continue;
    // Kept as long as MemoryStore keeps it: until the outcome's resetAt, at least 1 ms.
    const expiresAt = now + Math.max(1, outcome.resetAt - now);
    table.set(key, outcome.state, expiresAt);
    latestExpiry = Math.max(latestExpiry, expiresAt);
  }
  return { outcomes: decided.map(withoutState), latestExpiry };
}

function refund(request: WireRequest, layers: Layer[], states: unknown[], object: ObjectState): LayerOutcome[] {
  const { table, now } = object;
  return layers.map(({ key, algorithm, cost }, i) => {
    object.pending.settle(key, request.id);
    let state = states[i];
    if (state !== undefined) {
      state = algorithm.refund(state, now, cost, request.id);
      if (state !== undefined) table.replace(key, state);
    }
    return withoutState(algorithm.decide(state, now, 0, request.id));
  });
}

/**
 * A denial that only charges still pending elsewhere cause (they pass once those are refunded)
 * waits until they are settled, at most SETTLE_MS, instead of the full retryAfter.
 */
function untilSettled(denied: Outcome<unknown>, layer: Layer, state: unknown, id: string, object: ObjectState) {
  const { now } = object;
  const pending = object.pending.of(layer.key, now);
  if (pending.length === 0) return denied;
  let without = state;
  for (const charge of pending) without = layer.algorithm.refund(without, now, charge.cost, charge.id);
  if (!layer.algorithm.decide(without, now, layer.cost, id).allowed) return denied;
  const settled = Math.max(...pending.map((charge) => charge.at)) + SETTLE_MS - now;
  return { ...denied, retryAfter: Math.max(1, Math.min(denied.retryAfter, settled)) };
}
