import type { LayerOutcome } from '@floodgate/core/store';
import type { WireRequest } from './protocol';

/** A request waiting for the next script call. */
export interface Queued {
  request: WireRequest;
  resolve(outcomes: LayerOutcome[]): void;
  reject(error: unknown): void;
}

/** The most requests one script call decides: bounds its arguments and how long Redis is busy with it. */
export const MAX_BATCH = 64;

const later: (callback: () => void) => void = queueMicrotask;

/**
 * Collects the requests made during one turn of the event loop and sends them as one script call
 * once the turn's I/O is done. Under load an HTTP server parses many requests in a turn: they then
 * cost one round trip, one command for the client to encode and parse, and one script run, instead
 * of one each. Each request keeps its own atomicity, as if it had been sent alone.
 */
export class Batcher {
  #queue: Queued[] = [];
  #scheduled = false;

  constructor(private readonly send: (batch: Queued[]) => void) {}

  submit(request: WireRequest): Promise<LayerOutcome[]> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ request, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        later(this.#flush);
      }
    });
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const queue = this.#queue;
    this.#queue = [];
    for (let start = 0; start < queue.length; start += MAX_BATCH) {
      this.send(queue.length <= MAX_BATCH ? queue : queue.slice(start, start + MAX_BATCH));
    }
  };
}
