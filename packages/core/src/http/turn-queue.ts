/**
 * setImmediate as it was when this module loaded: fake timers a test installs later cannot stall
 * requests. Undefined on runtimes without it (Workers), where requests are decided at once.
 */
const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;

/**
 * Holds the requests that arrive during one turn of the event loop and hands them to `run` together,
 * once the turn's I/O is done (setImmediate). Under load a server reads many requests per turn;
 * deciding them back to back, then running their handlers and writing their responses back to back,
 * keeps the CPU's caches warm and lets the kernel and the event loop handle the sockets in bulk.
 * Measured with `pnpm bench:http` (bench/RESULTS.md); a lone request waits only for the end of its turn.
 * Entries are kept flat (three slots each) in two arrays used in turn, so queueing allocates nothing.
 */
export class TurnQueue<A, B, C> {
  #items: unknown[] = [];
  #spare: unknown[] = [];

  /** `run` must not throw: it owns each request's errors. */
  constructor(private readonly run: (a: A, b: B, c: C) => void) {}

  /** False where there is no setImmediate: callers then decide at once. */
  get batching(): boolean {
    return immediate !== undefined;
  }

  push(a: A, b: B, c: C): void {
    const items = this.#items;
    if (items.length === 0) (immediate as (callback: () => void) => unknown)(this.#flush);
    items.push(a, b, c);
  }

  readonly #flush = (): void => {
    const items = this.#items;
    this.#items = this.#spare;
    this.#spare = items;
    for (let i = 0; i < items.length; i += 3) this.run(items[i] as A, items[i + 1] as B, items[i + 2] as C);
    items.length = 0;
  };
}
