import { SETTLE_MS } from './pending-charges';
import type { LayerCall, Outcome } from '@floodgate/core/store';
import type { Pending, PendingCharges } from './pending-charges';
import type { StoredLayers } from './stored-layers';

/**
 * Whether `call` is denied now only because of charges on its key that may still be refunded (see
 * PendingCharges): it would be allowed without them. A blocked key is denied by its block, never
 * by pending charges.
 */
export function waitsForPending(
  call: LayerCall,
  states: StoredLayers,
  pending: PendingCharges,
  id: string,
  now: number,
): boolean {
  const charges = pending.of(call.key, now);
  if (charges.length === 0) return false;
  const until = states.blockedUntil(call.key, call.critical === true);
  if (until !== undefined && until > now) return false;
  const { algorithm, cost, critical } = call;
  const state = states.state(call.key);
  if (algorithm.decide(state, now, cost, id, critical === true).allowed) return false;
  let without = state;
  for (const charge of charges) without = algorithm.refund(without, now, charge.cost, charge.id);
  return algorithm.decide(without, now, cost, id, critical === true).allowed;
}

/** Such a denial waits until the pending charges are settled, at most SETTLE_MS, not its full retryAfter. */
export function untilSettled(denied: Outcome<unknown>, charges: readonly Pending[], now: number): Outcome<unknown> {
  if (charges.length === 0) return denied;
  const settled = Math.max(...charges.map((charge) => charge.at)) + SETTLE_MS - now;
  return { ...denied, retryAfter: Math.max(1, Math.min(denied.retryAfter, settled)) };
}
