import { BLOCK, NORMAL_BLOCK, STATE, STRIKES } from './entry-table';
import type { LayerStates } from '@floodgate/core/store';
import type { Entry, EntryKind, EntryTable } from './entry-table';

/** A key's live entries as this request has read and written them; a state kept parsed. */
interface Seen {
  entries: Map<EntryKind, Entry>;
  state: unknown;
}

/**
 * One request's LayerStates over the object's table, for core's consumeLayers and peekLayers (so
 * the object decides as MemoryStore does, by the same code). A key's rows are read once (its state,
 * block and strikes in one query) and kept, with every write, for the rest of the request.
 *
 * An entry written with a TTL of `ttl` ms counts while `now <= written + ttl`, as lru-cache and
 * Redis keep a key until its TTL has passed; it ends at `written + ttl + 1`.
 */
export class StoredLayers implements LayerStates {
  /** The latest sweepAt written (0 for none): the alarm has to run by then. */
  latestSweep = 0;
  readonly #seen = new Map<string, Seen>();

  /**
   * @param now the decisions' clock (the store's `clock`, or the object's)
   * @param objectNow the object's own clock, which the alarm sweeps by
   */
  constructor(
    private readonly table: EntryTable,
    private readonly now: number,
    private readonly objectNow: number,
  ) {}

  state(key: string): unknown {
    return this.#read(key).state;
  }

  setState(key: string, state: object, ttl: number): void {
    this.#write(key, STATE, JSON.stringify(state), ttl).state = state;
  }

  blockedUntil(key: string, critical: boolean): number | undefined {
    const entries = this.#read(key).entries;
    const all = entries.get(BLOCK)?.value as number | undefined;
    const normal = critical ? undefined : (entries.get(NORMAL_BLOCK)?.value as number | undefined);
    return normal === undefined || (all !== undefined && all > normal) ? all : normal;
  }

  block(key: string, until: number, ttl: number, normalOnly = false): void {
    this.#write(key, normalOnly ? NORMAL_BLOCK : BLOCK, until, ttl);
  }

  strikes(key: string): { count: number; at: number } | undefined {
    const entry = this.#read(key).entries.get(STRIKES);
    return entry === undefined ? undefined : (JSON.parse(entry.value as string) as { count: number; at: number });
  }

  setStrikes(key: string, count: number, at: number, ttl: number): void {
    this.#write(key, STRIKES, JSON.stringify({ count, at }), ttl);
  }

  /**
   * A refund's new state, kept until the old one would have ended (as MemoryStore keeps the
   * remaining TTL, at least 1 ms). Nothing happens for a key without a state.
   */
  replaceState(key: string, state: object): void {
    const seen = this.#read(key);
    const old = seen.entries.get(STATE);
    if (old === undefined) return;
    const endsAt = Math.max(old.endsAt, this.now + 2);
    const entry: Entry = { ...old, value: JSON.stringify(state), endsAt, sweepAt: old.sweepAt + (endsAt - old.endsAt) };
    this.table.put(key, entry);
    seen.entries.set(STATE, entry);
    seen.state = state;
  }

  /** Deletes the key's entries of these kinds (all of them: a reset; blocks and strikes: an unblock). */
  delete(key: string, kinds: readonly EntryKind[]): void {
    this.table.delete(key, kinds);
    const seen = this.#read(key);
    for (const kind of kinds) seen.entries.delete(kind);
    if (kinds.includes(STATE)) seen.state = undefined;
  }

  #read(key: string): Seen {
    let seen = this.#seen.get(key);
    if (seen === undefined) {
      seen = { entries: new Map(), state: undefined };
      for (const entry of this.table.rows(key)) {
        if (entry.endsAt <= this.now) continue;
        seen.entries.set(entry.kind, entry);
        if (entry.kind === STATE) seen.state = JSON.parse(entry.value as string);
      }
      this.#seen.set(key, seen);
    }
    return seen;
  }

  #write(key: string, kind: EntryKind, value: string | number, ttl: number): Seen {
    const entry: Entry = { kind, value, endsAt: this.now + ttl + 1, sweepAt: this.objectNow + ttl + 1 };
    this.table.put(key, entry);
    this.latestSweep = Math.max(this.latestSweep, entry.sweepAt);
    const seen = this.#read(key);
    seen.entries.set(kind, entry);
    return seen;
  }
}
