import { StoreError } from '@floodgate/core';
import { parseDurableObjectStoreOptions } from './options';
import { objectNameOf } from './placement';
import { parseReply, toWireLayer } from './protocol';
import type { LayerCall, LayerOutcome, PartitionedStore } from '@floodgate/core/store';
import type { DurableObjectStoreOptions } from './options';
import type { Operation, WireLayer, WireRequest } from './protocol';
import type { LimiterNamespace } from './types';

/** The URL is only a label: a Durable Object's fetch reaches the object, never the network. */
const ENDPOINT = 'https://floodgate.object/';

/** The layers of one request that live in one object, with their places in the request. */
interface Group {
  name: string;
  indices: number[];
  layers: WireLayer[];
}

/**
 * Keeps limiter state in Durable Objects (FloodgateObject), so that every isolate of every Worker
 * bound to the namespace shares one exact limit. Not `local`: the limiter puts its deadline,
 * circuit breaker and local fallback around it, as it does around Redis.
 *
 * Layers keyed by one identity live in one object and are decided in one atomic call. Layers on
 * different objects (an IP layer and a user layer) are charged in parallel, and when one denies or
 * fails, the ones that were charged are refunded, as RedisStore does across Cluster slots.
 *
 * @example
 * const store = new DurableObjectStore({ namespace: env.FLOODGATE });
 */
export class DurableObjectStore implements PartitionedStore {
  readonly shards: number | undefined;
  readonly #namespace: LimiterNamespace;

  constructor(options: DurableObjectStoreOptions) {
    ({ namespace: this.#namespace, shards: this.shards } = parseDurableObjectStoreOptions(options));
  }

  consume(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]> {
    return this.#submit('consume', calls, requestId);
  }

  async refund(calls: readonly LayerCall[], requestId: string): Promise<void> {
    await this.#submit('refund', calls, requestId);
  }

  /** Each layer's numbers now, for a request of cost 0; charges nothing. */
  peek(calls: readonly LayerCall[], requestId = ''): Promise<LayerOutcome[]> {
    return this.#submit('peek', calls, requestId);
  }

  /**
   * With `shards`, each shard is a partition with its own circuit breaker in the limiter. With one
   * object per identity there are as many objects as clients: they share one breaker, so an outage
   * of Durable Objects sends everyone to the fallback after a few failures, not each client after its own.
   */
  partitionOf(key: string): string {
    return this.shards === undefined ? '' : objectNameOf(key, this.shards);
  }

  #submit(op: Operation, calls: readonly LayerCall[], id: string): Promise<LayerOutcome[]> {
    let groups: Group[];
    try {
      groups = this.#group(calls);
    } catch (error) {
      return Promise.reject(error);
    }
    if (groups.length === 0) return Promise.resolve([]);
    if (groups.length === 1) return this.#call(groups[0] as Group, op, id);
    return op === 'consume'
      ? this.#consumeAcross(groups, calls.length, id)
      : this.#across(groups, op, calls.length, id);
  }

  #group(calls: readonly LayerCall[]): Group[] {
    const byName = new Map<string, Group>();
    for (let i = 0; i < calls.length; i++) {
      const layer = toWireLayer(calls[i] as LayerCall);
      const name = objectNameOf(layer.key, this.shards);
      let group = byName.get(name);
      if (group === undefined) {
        group = { name, indices: [], layers: [] };
        byName.set(name, group);
      }
      group.indices.push(i);
      group.layers.push(layer);
    }
    return [...byName.values()];
  }

  async #call(group: Group, op: Operation, id: string, partial = false): Promise<LayerOutcome[]> {
    const request: WireRequest = partial ? { op, id, layers: group.layers, partial } : { op, id, layers: group.layers };
    const namespace = this.#namespace;
    let response: Response;
    try {
      const stub = namespace.get(namespace.idFromName(group.name) as never);
      response = await stub.fetch(
        new Request(ENDPOINT + op, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(request),
        }),
      );
    } catch (error) {
      throw new StoreError(`Durable Object ${op} failed: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
    if (!response.ok) {
      const detail = await response.text().catch(() => '');
      throw new StoreError(`Durable Object ${op} failed: HTTP ${response.status} ${detail.slice(0, 200)}`);
    }
    return parseReply(await response.json().catch(() => undefined), request);
  }

  /** Refund and peek on several objects: no decision to keep together, every part just has to land. */
  async #across(groups: Group[], op: Operation, count: number, id: string): Promise<LayerOutcome[]> {
    const answers = await Promise.all(groups.map((group) => this.#call(group, op, id)));
    return op === 'refund' ? [] : merge(groups, answers, count);
  }

  /**
   * One consume per object, in parallel. Each is atomic for its own layers only, so when any object
   * denies or fails, the objects that charged are refunded and report their numbers uncharged. An
   * object whose refund fails keeps its charge until its window forgets it (never more admitted).
   * Each part is marked `partial`: a denial its charge causes meanwhile is told to wait only until
   * the charge is settled (see PendingCharges).
   */
  async #consumeAcross(groups: Group[], count: number, id: string): Promise<LayerOutcome[]> {
    const settled = await Promise.allSettled(groups.map((group) => this.#call(group, 'consume', id, true)));
    const charged = (result: PromiseSettledResult<LayerOutcome[]>) =>
      result.status === 'fulfilled' && result.value.every((outcome) => outcome.allowed);
    if (!settled.every(charged)) {
      await Promise.all(
        settled.map(async (result, g) => {
          if (!charged(result)) return;
          const group = groups[g] as Group;
          try {
            settled[g] = { status: 'fulfilled', value: await this.#call(group, 'refund', id) };
          } catch {
            // Kept as charged: the refund did not land.
          }
        }),
      );
    }
    const answers: LayerOutcome[][] = [];
    for (const result of settled) {
      if (result.status === 'rejected') throw result.reason;
      answers.push(result.value);
    }
    return merge(groups, answers, count);
  }
}

function merge(groups: readonly Group[], answers: readonly LayerOutcome[][], count: number): LayerOutcome[] {
  const outcomes: LayerOutcome[] = new Array(count);
  for (const [g, group] of groups.entries()) {
    for (const [j, index] of group.indices.entries())
      outcomes[index] = (answers[g] as LayerOutcome[])[j] as LayerOutcome;
  }
  return outcomes;
}
