import { InvalidOptionError, StoreError } from '@floodgate/core';
import { MAX_TIMER_MS, show } from '@floodgate/core/store';
import { consumeAcross, merge } from './across';
import { parseDurableObjectStoreOptions } from './options';
import { objectNameOf } from './placement';
import { isBlockDuration, isStorageRefusal, parseReply, toWireLayer } from './protocol';
import { DurableObjectWarning } from './warnings';
import type { LayerCall, LayerOutcome, PartitionedStore } from '@floodgate/core/store';
import type { Group } from './across';
import type { DurableObjectStoreOptions } from './options';
import type { Warn } from '@floodgate/core/store';
import type { Operation, WireRequest } from './protocol';
import type { LimiterNamespace } from './types';

/** The URL is only a label: a Durable Object's fetch reaches the object, never the network. */
const ENDPOINT = 'https://floodgate.object/';

/** One operation as sent to every object it touches. */
interface Sending {
  op: Operation;
  id: string;
  now: number | undefined;
  duration?: number;
}

/**
 * Keeps limiter state in Durable Objects (FloodgateObject), so that every isolate of every Worker
 * bound to the namespace shares one exact limit. Not `local`: the limiter puts its deadline,
 * circuit breaker and local fallback around it, as it does around Redis.
 *
 * Layers keyed by one identity live in one object and are decided in one atomic call, with
 * MemoryStore's semantics (shadow layers, the reserve, penalties). Layers on different objects (an
 * IP layer and a user layer) are charged in parallel, and when one object denies or fails, the
 * ones that were charged are refunded, as RedisStore does across Cluster slots. Every operation is
 * one call per object its layers live in.
 *
 * @example
 * const store = new DurableObjectStore({ namespace: env.FLOODGATE });
 */
export class DurableObjectStore implements PartitionedStore {
  readonly shards: number | undefined;
  readonly #namespace: LimiterNamespace;
  readonly #clock: (() => number) | undefined;
  readonly #warn: Warn;

  constructor(options: DurableObjectStoreOptions) {
    ({
      namespace: this.#namespace,
      shards: this.shards,
      clock: this.#clock,
      warn: this.#warn,
    } = parseDurableObjectStoreOptions(options));
  }

  consume(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]> {
    return this.#submit(calls, { op: 'consume', id: requestId });
  }

  async refund(calls: readonly LayerCall[], requestId: string): Promise<void> {
    await this.#submit(calls, { op: 'refund', id: requestId });
  }

  /** Each layer's outcome now, at its cost, as consume would answer it; writes nothing. */
  peek(calls: readonly LayerCall[], requestId = ''): Promise<LayerOutcome[]> {
    return this.#submit(calls, { op: 'peek', id: requestId });
  }

  /** Deletes the layers' state, blocks and strikes. */
  async reset(calls: readonly LayerCall[]): Promise<void> {
    await this.#submit(calls, { op: 'reset', id: '' });
  }

  /** Blocks the layers' keys for `duration` ms (each object its own keys), for every Worker on the namespace. */
  async block(calls: readonly LayerCall[], duration: number): Promise<void> {
    if (!isBlockDuration(duration)) {
      throw new InvalidOptionError(
        `DurableObjectStore.block: duration must be whole ms from 1 to ${MAX_TIMER_MS}, got ${show(duration)}`,
      );
    }
    await this.#submit(calls, { op: 'block', id: '', duration });
  }

  /** Lifts the layers' blocks and forgets their strikes. */
  async unblock(calls: readonly LayerCall[]): Promise<void> {
    await this.#submit(calls, { op: 'unblock', id: '' });
  }

  /**
   * With `shards`, each shard is a partition with its own circuit breaker in the limiter. With one
   * object per identity there are as many objects as clients: they share one breaker, so an outage
   * of Durable Objects sends everyone to the fallback after a few failures, not each client after its own.
   */
  partitionOf(key: string): string {
    return this.shards === undefined ? '' : objectNameOf(key, this.shards);
  }

  #submit(calls: readonly LayerCall[], operation: Omit<Sending, 'now'>): Promise<LayerOutcome[]> {
    let groups: Group[];
    let sending: Sending;
    try {
      groups = this.#group(calls);
      sending = { ...operation, now: this.#now() };
    } catch (error) {
      return Promise.reject(error);
    }
    const call = (group: Group, op: Operation, partial?: boolean) => this.#call(group, { ...sending, op }, partial);
    if (groups.length === 0) return Promise.resolve([]);
    if (groups.length === 1) return call(groups[0] as Group, sending.op);
    if (sending.op === 'consume') return consumeAcross(groups, calls.length, call);
    return Promise.all(groups.map((group) => call(group, sending.op))).then((answers) =>
      merge(groups, answers, calls.length),
    );
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

  /**
   * An object on key-value storage refuses every call, and the limiter decides each request in its
   * fallback (degraded) from then on: without this warning nothing would say why, or what fixes it.
   */
  #reportRefusal(detail: string): void {
    let body: unknown;
    try {
      body = JSON.parse(detail);
    } catch {
      return;
    }
    if (isStorageRefusal(body)) {
      this.#warn(
        DurableObjectWarning.storage,
        `every call to the Durable Objects of DurableObjectStore.namespace is refused, so each request is decided by this isolate's local fallback (degraded: true): ${body.error}`,
      );
    }
  }

  /** The clock's reading, checked, when the store has one. */
  #now(): number | undefined {
    if (this.#clock === undefined) return undefined;
    const now: unknown = this.#clock();
    if (!Number.isSafeInteger(now) || (now as number) < 0) {
      throw new InvalidOptionError(`DurableObjectStore.clock must return integer epoch ms >= 0, got ${show(now)}`);
    }
    return now as number;
  }

  async #call(group: Group, sending: Sending, partial = false): Promise<LayerOutcome[]> {
    const { op, id, now, duration } = sending;
    const request: WireRequest = { op, id, layers: group.layers };
    if (partial) request.partial = true;
    if (now !== undefined) request.now = now;
    if (duration !== undefined) request.duration = duration;
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
      this.#reportRefusal(detail);
      throw new StoreError(`Durable Object ${op} failed: HTTP ${response.status} ${detail.slice(0, 200)}`);
    }
    return parseReply(await response.json().catch(() => undefined), request);
  }
}
