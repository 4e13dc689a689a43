import { StoreError, withDeadline } from '@floodgate/core';
import { parseRedisStoreOptions } from './options';
import { nowArgument, parseConsumeReply, scriptArguments, toWireLayer } from './protocol';
import { evalRunner, functionRunner } from './script-runner';
import { refusedTime, warnServerTimeRefused } from './server-time';
import { groupBySlot, masterOf } from './slots';
import { readEvictionPolicy, warnAboutEviction, warnIfOfflineQueue } from './warnings';
import type { LayerCall, LayerOutcome, PartitionedStore } from '@floodgate/core';
import type { RedisStoreClock, RedisStoreConfig, RedisStoreOptions, RedisStoreScripts } from './options';
import type { WireLayer } from './protocol';
import type { ScriptRunner } from './script-runner';

/**
 * Keeps limiter state in Redis, Valkey or Redis Cluster. Every decision is one atomic Lua call per
 * slot: on a single node all layers of a request are decided and charged in one round trip.
 *
 * @example
 * const client = new Redis({ enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 100 });
 * const limiter = createLimiter({ store: new RedisStore({ client }), limits });
 */
export class RedisStore implements PartitionedStore {
  readonly prefix: string;
  readonly timeout: number;
  readonly scripts: RedisStoreScripts;
  readonly #config: RedisStoreConfig;
  readonly #runner: ScriptRunner;
  #clock: RedisStoreClock;
  #evictionPolicy: Promise<string | undefined> | undefined;

  constructor(options: RedisStoreOptions) {
    this.#config = parseRedisStoreOptions(options);
    ({ prefix: this.prefix, clock: this.#clock, timeout: this.timeout, scripts: this.scripts } = this.#config);
    const { client, cluster } = this.#config;
    this.#runner = this.scripts === 'function' ? functionRunner(client, cluster) : evalRunner(client);
    warnIfOfflineQueue(client);
  }

  /** The clock in use: as configured, or `'client'` once Redis has refused TIME inside scripts. */
  get clock(): RedisStoreClock {
    return this.#clock;
  }

  async consume(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]> {
    const layers = calls.map((call) => toWireLayer(call, this.prefix));
    if (layers.length === 0) return [];
    const groups = this.#groups(layers);
    const outcomes =
      groups.length === 1
        ? await this.#runGroup('consume', layers, requestId)
        : await this.#consumeAcrossSlots(layers, groups, requestId);
    // Once connected, look at the server's eviction policy; off the request's path.
    if (this.#evictionPolicy === undefined) void this.checkEvictionPolicy();
    return outcomes;
  }

  /**
   * Reads Redis' `maxmemory-policy` once (on the first successful consume, or when called) and
   * warns once, with code FLOODGATE_EVICTION_POLICY, when it is not `noeviction`. Resolves to the
   * policy, or undefined when CONFIG cannot be read. Never rejects.
   */
  checkEvictionPolicy(): Promise<string | undefined> {
    this.#evictionPolicy ??= readEvictionPolicy(this.#config.client, this.#config.cluster).then((policy) => {
      if (policy !== undefined && policy !== 'noeviction') warnAboutEviction(policy);
      return policy;
    });
    return this.#evictionPolicy;
  }

  async refund(calls: readonly LayerCall[], requestId: string): Promise<void> {
    const layers = calls.map((call) => toWireLayer(call, this.prefix));
    if (layers.length === 0) return;
    const groups = this.#groups(layers);
    await Promise.all(groups.map((group) => this.#runGroup('refund', pick(layers, group), requestId)));
  }

  /**
   * Which part of Redis holds `key`: the serving master on a Cluster (each gets its own circuit
   * breaker in the limiter, so losing one shard leaves the others in use), one part otherwise.
   */
  partitionOf(key: string): string {
    return this.#config.cluster ? masterOf(this.#config.client.slots, this.prefix + key) : '';
  }

  #groups(layers: readonly WireLayer[]): number[][] {
    if (!this.#config.cluster) return [layers.map((_, index) => index)];
    return groupBySlot(layers.map((layer) => layer.key));
  }

  /** The script's clock argument: `''` for Redis TIME, else a checked integer from this process. */
  #now(): string | number {
    const clock = this.#clock;
    if (clock === 'server') return '';
    return nowArgument(clock === 'client' ? Date.now() : clock());
  }

  #run(op: 'consume' | 'refund', layers: readonly WireLayer[], requestId: string): Promise<unknown> {
    return withDeadline(this.#send(op, layers, requestId), this.timeout);
  }

  async #send(op: 'consume' | 'refund', layers: readonly WireLayer[], requestId: string): Promise<unknown> {
    const keys = layers.map((layer) => layer.key);
    try {
      try {
        return await this.#runner.run(keys, scriptArguments(op, this.#now(), requestId, layers));
      } catch (error) {
        if (!refusedTime(error)) throw error;
        // The script stopped before writing anything: switch to this process' clock for good.
        this.#clock = 'client';
        warnServerTimeRefused();
        return await this.#runner.run(keys, scriptArguments(op, this.#now(), requestId, layers));
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new StoreError(`Redis ${op} failed: ${reason}`, { cause: error });
    }
  }

  /** One script call for layers on one slot; outcomes with resetAt in this process' clock. */
  async #runGroup(op: 'consume' | 'refund', layers: readonly WireLayer[], requestId: string): Promise<LayerOutcome[]> {
    const reply = await this.#run(op, layers, requestId);
    const received = Date.now();
    const { now, outcomes } = parseConsumeReply(reply, layers.length);
    if (this.#clock !== 'server') return outcomes;
    // resetAt is in the server's clock; callers (headers, deny cache) read it with this process' clock.
    const shift = received - now;
    return outcomes.map((outcome) => ({ ...outcome, resetAt: outcome.resetAt + shift }));
  }

  /**
   * Cluster, layers on several slots: one call per slot in parallel. Each call is atomic for its
   * own layers only, so when any group denies or fails, the groups that were charged are refunded.
   */
  async #consumeAcrossSlots(layers: WireLayer[], groups: number[][], requestId: string): Promise<LayerOutcome[]> {
    const settled = await Promise.allSettled(
      groups.map((group) => this.#runGroup('consume', pick(layers, group), requestId)),
    );
    const charged = (result: PromiseSettledResult<LayerOutcome[]>) =>
      result.status === 'fulfilled' && result.value.every((outcome) => outcome.allowed);
    const results = settled.every(charged) ? settled : await this.#refundCharged(layers, groups, settled, requestId);
    const outcomes: LayerOutcome[] = new Array(layers.length);
    for (const [g, result] of results.entries()) {
      if (result.status === 'rejected') throw result.reason;
      for (const [j, index] of (groups[g] as number[]).entries()) outcomes[index] = result.value[j] as LayerOutcome;
    }
    return outcomes;
  }

  /**
   * Gives back what the allowing groups were charged; they then report their numbers after the
   * refund (uncharged), as on a single node. A group whose refund failed keeps its charged numbers.
   */
  async #refundCharged(
    layers: readonly WireLayer[],
    groups: number[][],
    settled: PromiseSettledResult<LayerOutcome[]>[],
    requestId: string,
  ): Promise<PromiseSettledResult<LayerOutcome[]>[]> {
    return Promise.all(
      settled.map(async (result, g) => {
        if (result.status === 'rejected' || !result.value.every((outcome) => outcome.allowed)) return result;
        try {
          return {
            status: 'fulfilled',
            value: await this.#runGroup('refund', pick(layers, groups[g] ?? []), requestId),
          };
        } catch {
          return result;
        }
      }),
    );
  }
}

function pick(layers: readonly WireLayer[], group: readonly number[]): WireLayer[] {
  return group.map((index) => layers[index] as WireLayer);
}
