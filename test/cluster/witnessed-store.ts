import type { LayerCall, LayerOutcome, PartitionedStore } from '@floodgate/core/store';
import type { RedisStore } from '@floodgate/redis';

/**
 * Forwards to a RedisStore and keeps how each consume call ended, also for calls the limiter gave
 * up on at its deadline: a timed-out command is not cancelled, and RedisStore goes on with it (its
 * own timeout, then the refunds of a Cluster's other slot groups).
 */
export class WitnessedStore implements PartitionedStore {
  /** Consume calls made. */
  calls = 0;
  /** Calls that Redis ran and charged (every layer allowed). */
  charged = 0;
  /** How long each charged call took, in ms, when that was longer than `lateAfterMs`. */
  readonly lateCharges: number[] = [];
  /** The final error of every call that failed. */
  readonly failures: unknown[] = [];
  /** How each call ended, by the order it was made: its time in ms, or 'failed'. */
  readonly ends: (number | 'failed')[] = [];
  readonly #pending = new Set<Promise<void>>();

  constructor(
    readonly inner: RedisStore,
    readonly lateAfterMs = Number.POSITIVE_INFINITY,
  ) {}

  consume(calls: readonly LayerCall[], requestId: string): Promise<LayerOutcome[]> {
    const index = this.calls;
    this.calls += 1;
    const started = performance.now();
    const reply = this.inner.consume(calls, requestId);
    const seen = reply.then(
      (outcomes) => {
        const took = performance.now() - started;
        this.ends[index] = took;
        if (!outcomes.every((outcome) => outcome.allowed)) return;
        this.charged += 1;
        if (took > this.lateAfterMs) this.lateCharges.push(Math.round(took));
      },
      (error: unknown) => {
        this.ends[index] = 'failed';
        this.failures.push(error);
      },
    );
    this.#pending.add(seen);
    void seen.then(() => this.#pending.delete(seen));
    return reply;
  }

  refund(calls: readonly LayerCall[], requestId: string): Promise<void> {
    return this.inner.refund(calls, requestId);
  }

  partitionOf(key: string): string {
    return this.inner.partitionOf(key);
  }

  /** Resolves once every call made so far has settled in RedisStore, refunds included. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }
}
