import { InvalidOptionError, StoreError } from '@floodgate/core';
import { Deadlines, show } from '@floodgate/core/store';
import { Batcher } from './batcher';
import { parseRedisStoreOptions } from './options';
import { enforcedAllow, keyPrefixOf, nowArgument, parseReply, scriptCall, toWireLayer } from './protocol';
import { evalRunner, functionRunner } from './script-runner';
import { refusedTime } from './server-time';
import { storeFailure } from './store-failure';
import { groupBySlot, masterOf } from './slots';
import {
  readEvictionPolicy,
  warnAboutEviction,
  warnIfOfflineQueue,
  warnIfRefused,
  warnKeyReset,
  warnServerTimeRefused,
} from './warnings';
import type { LayerCall, LayerOutcome, PartitionedStore } from '@floodgate/core/store';
import type { Queued } from './batcher';
import type { RedisStoreClock, RedisStoreConfig, RedisStoreOptions, RedisStoreScripts } from './options';
import type { WireAnswer, WireLayer, WireOp, WireRequest } from './protocol';
import type { ScriptRunner } from './script-runner';

/**
 * Keeps limiter state in Redis, Valkey or Redis Cluster. Every decision is atomic in Lua: on a
 * single node all layers of a request are decided and charged in one script run, and the requests
 * of one event-loop turn share one round trip.
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
  /** `prefix` and its `:` separator, as each key starts. */
  readonly #keyPrefix: string;
  readonly #runner: ScriptRunner;
  readonly #batcher: Batcher | undefined;
  readonly #deadlines: Deadlines;
  #clock: RedisStoreClock;
  #evictionPolicy: Promise<string | undefined> | undefined;

  constructor(options: RedisStoreOptions) {
    this.#config = parseRedisStoreOptions(options);
    ({ prefix: this.prefix, clock: this.#clock, timeout: this.timeout, scripts: this.scripts } = this.#config);
    this.#keyPrefix = keyPrefixOf(this.prefix);
    const { client, cluster } = this.#config;
    this.#deadlines = new Deadlines(this.timeout);
    this.#runner = this.scripts === 'function' ? functionRunner(client) : evalRunner(client);
    // A Cluster script may only touch one slot, so only a single node batches requests together.
    this.#batcher = cluster ? undefined : new Batcher((batch) => this.#sendBatch(batch));
    warnIfOfflineQueue(client, this.#config.warn);
  }

  /**
   * How many times the client has become ready since this store met it (undefined for a client
   * that does not say: Valkey GLIDE, or an adapter without readyCount). A limiter whose circuit
   * breaker is open probes Redis at the first request after this changes.
   */
  get readyCount(): number | undefined {
    return this.#config.client.readyCount?.();
  }

  /** The clock in use: as configured, or `'client'` once Redis has refused TIME inside scripts. */
  get clock(): RedisStoreClock {
    return this.#clock;
  }

  consume(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]> {
    return this.#submit('consume', calls, requestId);
  }

  async refund(calls: readonly LayerCall[], requestId: string): Promise<void> {
    await this.#submit('refund', calls, requestId);
  }

  /** Each layer's outcome now, at its cost, as consume would answer: only reads (no write, no TTL change). */
  peek(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]> {
    return this.#submit('peek', calls, requestId);
  }

  /** Deletes the layers' keys (state and block) and their penalty history. */
  async reset(calls: readonly LayerCall[]): Promise<void> {
    await this.#submit('reset', calls, '');
  }

  /** Blocks the layers' keys for `duration` ms, on every instance that shares this Redis. */
  async block(calls: readonly LayerCall[], duration: number): Promise<void> {
    if (!Number.isSafeInteger(duration) || duration < 1) {
      throw new InvalidOptionError(`RedisStore.block: duration must be whole ms >= 1, got ${show(duration)}`);
    }
    await this.#submit(
      'block',
      calls.map((call) => ({ ...call, cost: duration })),
      '',
    );
  }

  /** Lifts the layers' blocks and forgets their penalty history. */
  async unblock(calls: readonly LayerCall[]): Promise<void> {
    await this.#submit('unblock', calls, '');
  }

  /**
   * Reads Redis' `maxmemory-policy` once (on the first successful consume, or when called) and
   * warns once, with code WARN_FLOODGATE_EVICTION_POLICY, when it is not `noeviction`. Resolves to
   * the policy, or undefined when CONFIG cannot be read. Never rejects.
   */
  checkEvictionPolicy(): Promise<string | undefined> {
    this.#evictionPolicy ??= readEvictionPolicy(this.#config.client).then((policy) => {
      if (policy !== undefined && policy !== 'noeviction') warnAboutEviction(policy, this.#config.warn);
      return policy;
    });
    return this.#evictionPolicy;
  }

  /**
   * Which part of Redis holds `key`: the serving master on a Cluster (each gets its own circuit
   * breaker in the limiter, so losing one shard leaves the others in use), one part otherwise.
   */
  partitionOf(key: string): string {
    return this.#config.cluster ? masterOf(this.#config.client, this.#keyPrefix + key) : '';
  }

  #submit(op: WireOp, calls: readonly LayerCall[], id: string): Promise<LayerOutcome[]> {
    let layers: WireLayer[];
    try {
      layers = calls.map((call) => toWireLayer(call, this.#keyPrefix, op));
    } catch (error) {
      return Promise.reject(error);
    }
    if (layers.length === 0) return Promise.resolve([]);
    if (this.#batcher !== undefined) return this.#batcher.submit({ op, id, layers });
    const groups = groupBySlot(layers.map((layer) => layer.key));
    if (groups.length === 1) return this.#runOne({ op, id, layers });
    return op === 'consume' ? this.#consumeAcrossSlots(layers, groups, id) : this.#eachSlot(op, layers, groups, id);
  }

  /** One script call for a batch of requests; each settles with its own answer. */
  #sendBatch(batch: readonly Queued[]): void {
    const requests = batch.map((queued) => queued.request);
    this.#call(requests).then(
      (answers) => {
        for (let i = 0; i < batch.length; i++) settle(batch[i] as Queued, answers[i] as WireAnswer);
      },
      (error: unknown) => {
        for (const queued of batch) queued.reject(error);
      },
    );
  }

  async #runOne(request: WireRequest): Promise<LayerOutcome[]> {
    const [answer] = await this.#call([request]);
    if (answer === undefined || !answer.ok) throw answer?.error ?? new StoreError('Redis gave no answer');
    return answer.outcomes;
  }

  /** Runs the composer over `requests` under the store's deadline; outcomes in this process' clock. */
  async #call(requests: readonly WireRequest[]): Promise<WireAnswer[]> {
    const reply = await this.#deadlines.watch(this.#send(requests));
    const received = Date.now();
    const { now, answers } = parseReply(reply, requests);
    // resetAt is in the server's clock; callers (headers, deny cache) read it with this process' clock.
    const shift = this.#clock === 'server' ? received - now : 0;
    for (const answer of answers) {
      if (!answer.ok) {
        warnIfRefused(answer.error, this.#config.warn);
        continue;
      }
      if (answer.reset) warnKeyReset(this.#config.warn);
      if (shift !== 0) for (const outcome of answer.outcomes) outcome.resetAt += shift;
    }
    // Once connected, look at the server's eviction policy; off the request's path.
    if (this.#evictionPolicy === undefined) void this.checkEvictionPolicy();
    return answers;
  }

  async #send(requests: readonly WireRequest[]): Promise<unknown> {
    try {
      try {
        return await this.#runScript(requests);
      } catch (error) {
        if (!refusedTime(error)) throw error;
        // The script stopped before writing anything: switch to this process' clock for good.
        this.#clock = 'client';
        warnServerTimeRefused(this.#config.warn);
        return await this.#runScript(requests);
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const failure = storeFailure(requests[0]?.op ?? 'call', reason, requests[0]?.layers[0]?.key, error);
      warnIfRefused(failure, this.#config.warn);
      throw failure;
    }
  }

  #runScript(requests: readonly WireRequest[]): Promise<unknown> {
    const { keys, args } = scriptCall(this.#now(), requests);
    return this.#runner.run(keys, args);
  }

  /** The script's clock argument: `''` for Redis TIME, else a checked integer from this process. */
  #now(): string | number {
    const clock = this.#clock;
    if (clock === 'server') return '';
    return nowArgument(clock === 'client' ? Date.now() : clock());
  }

  /**
   * Cluster, layers on several slots: one call per slot in parallel. Each call is atomic for its
   * own layers only, so when any group denies or fails, the groups that were charged are refunded.
   */
  async #consumeAcrossSlots(layers: WireLayer[], groups: number[][], id: string): Promise<LayerOutcome[]> {
    const settled = await Promise.allSettled(
      groups.map((group) => this.#runOne({ op: 'consume', id, layers: pick(layers, group) })),
    );
    const charged = (result: PromiseSettledResult<LayerOutcome[]>, g: number) =>
      result.status === 'fulfilled' && enforcedAllow(pick(layers, groups[g] ?? []), result.value);
    const results = settled.every(charged) ? settled : await this.#refundCharged(layers, groups, settled, id);
    const outcomes: LayerOutcome[] = new Array(layers.length);
    for (const [g, result] of results.entries()) {
      if (result.status === 'rejected') throw result.reason;
      for (const [j, index] of (groups[g] as number[]).entries()) outcomes[index] = result.value[j] as LayerOutcome;
    }
    return outcomes;
  }

  /** Cluster, any operation but consume: one call per slot in parallel; the outcomes in the layers' order. */
  async #eachSlot(op: WireOp, layers: WireLayer[], groups: number[][], id: string): Promise<LayerOutcome[]> {
    const results = await Promise.all(groups.map((group) => this.#runOne({ op, id, layers: pick(layers, group) })));
    const outcomes: LayerOutcome[] = new Array(layers.length);
    for (const [g, result] of results.entries()) {
      for (const [j, index] of (groups[g] as number[]).entries()) outcomes[index] = result[j] as LayerOutcome;
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
    id: string,
  ): Promise<PromiseSettledResult<LayerOutcome[]>[]> {
    return Promise.all(
      settled.map(async (result, g) => {
        const group = pick(layers, groups[g] ?? []);
        if (result.status === 'rejected' || !enforcedAllow(group, result.value)) return result;
        try {
          // Only what was charged goes back (a shadow layer that denied was not); the reply gives
          // every layer's numbers after the refund.
          const charged = group.map((layer, j) =>
            (result.value[j] as LayerOutcome).allowed ? layer : uncharged(layer),
          );
          const after = await this.#runOne({ op: 'refund', id, layers: charged });
          // A shadow layer that denied keeps its denial: the refund reply decides it at cost 0.
          const value = result.value.map((outcome, j) => (outcome.allowed ? (after[j] as LayerOutcome) : outcome));
          return { status: 'fulfilled', value };
        } catch {
          return result;
        }
      }),
    );
  }
}

function settle(queued: Queued, answer: WireAnswer): void {
  if (answer.ok) queued.resolve(answer.outcomes);
  else queued.reject(answer.error);
}

/** The layer at cost 0: its numbers without a charge. */
function uncharged(layer: WireLayer): WireLayer {
  return { ...layer, cost: 0 };
}

function pick(layers: readonly WireLayer[], group: readonly number[]): WireLayer[] {
  return group.map((index) => layers[index] as WireLayer);
}
