import type { LayerOutcome } from '@floodgate/core/store';
import type { Operation, WireLayer } from './protocol';

/** The layers of one request that live in one object, with their places in the request. */
export interface Group {
  name: string;
  indices: number[];
  layers: WireLayer[];
}

/** One call to one object; `partial` marks a consume of part of a request. */
export type GroupCall = (group: Group, op: Operation, partial?: boolean) => Promise<LayerOutcome[]>;

/** True when every layer that is not a shadow allows: the object charged its part of the request. */
function passes(layers: readonly WireLayer[], outcomes: readonly LayerOutcome[]): boolean {
  return outcomes.every((outcome, j) => outcome.allowed || (layers[j] as WireLayer).shadow === true);
}

/**
 * One consume per object, in parallel. Each is atomic for its own layers only (and applies its own
 * layers' penalties when it denies), so when any object denies or fails, the objects that charged
 * are refunded what they charged (not a shadow layer that denied), and the refunded layers report
 * their numbers uncharged, as MemoryStore reports them. An object whose refund fails keeps its
 * charge until its window forgets it (never more admitted). Each part is marked `partial`: a denial
 * its charge causes meanwhile is told to wait only until the charge is settled (see PendingCharges).
 */
export async function consumeAcross(groups: readonly Group[], count: number, call: GroupCall): Promise<LayerOutcome[]> {
  const settled = await Promise.allSettled(groups.map((group) => call(group, 'consume', true)));
  const charged = (g: number) => {
    const result = settled[g] as PromiseSettledResult<LayerOutcome[]>;
    return result.status === 'fulfilled' && passes((groups[g] as Group).layers, result.value);
  };
  if (!groups.every((_, g) => charged(g))) {
    await Promise.all(groups.map(async (group, g) => (charged(g) ? refundPart(group, g, settled, call) : undefined)));
  }
  const answers: LayerOutcome[][] = [];
  for (const result of settled) {
    if (result.status === 'rejected') throw result.reason;
    answers.push(result.value);
  }
  return merge(groups, answers, count);
}

/** Gives back what group `g` charged; its refunded layers then answer with their numbers after it. */
async function refundPart(
  group: Group,
  g: number,
  settled: PromiseSettledResult<LayerOutcome[]>[],
  call: GroupCall,
): Promise<void> {
  const outcomes = (settled[g] as PromiseFulfilledResult<LayerOutcome[]>).value;
  const positions = outcomes.flatMap((outcome, j) => (outcome.allowed ? [j] : []));
  if (positions.length === 0) return;
  const part: Group = {
    name: group.name,
    indices: positions.map((j) => group.indices[j] as number),
    layers: positions.map((j) => group.layers[j] as WireLayer),
  };
  try {
    const after = await call(part, 'refund');
    const value = [...outcomes];
    for (const [k, j] of positions.entries()) value[j] = after[k] as LayerOutcome;
    settled[g] = { status: 'fulfilled', value };
  } catch {
    // Kept as charged: the refund did not land.
  }
}

/** The groups' answers in the request's layer order. */
export function merge(groups: readonly Group[], answers: readonly LayerOutcome[][], count: number): LayerOutcome[] {
  const outcomes: LayerOutcome[] = new Array(count);
  for (const [g, group] of groups.entries()) {
    for (const [j, index] of group.indices.entries()) {
      outcomes[index] = (answers[g] as LayerOutcome[])[j] as LayerOutcome;
    }
  }
  return outcomes;
}
