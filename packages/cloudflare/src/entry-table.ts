import type { SqlStorageLike } from './types';

/**
 * A new name, not the `floodgate_state` of the first (unreleased) version: an object that still has
 * that table ignores it, and deletes it with the rest of its storage once no entry is left.
 */
const TABLE = 'floodgate_entries';

/**
 * What a row holds for its key: the algorithm's state (JSON), a block (when it ends, epoch ms),
 * strikes (JSON: count and time of the last), or a block of normal requests only (a penalty given
 * while the reserve had room; when it ends).
 */
export const STATE = 0;
export const BLOCK = 1;
export const STRIKES = 2;
export const NORMAL_BLOCK = 3;
export type EntryKind = typeof STATE | typeof BLOCK | typeof STRIKES | typeof NORMAL_BLOCK;

export interface Entry {
  kind: EntryKind;
  /** JSON text for a state or strikes, an integer for a block. */
  value: string | number;
  /** The first instant (epoch ms, on the decisions' clock) at which the entry no longer counts. */
  endsAt: number;
  /** The first instant (epoch ms, on the object's own clock) at which the alarm may delete it. */
  sweepAt: number;
}

/**
 * The object's storage in SQLite: up to four rows per key, one per kind. Each row carries two
 * times: when it stops counting by the clock decisions are made with (the store's `clock` when it
 * has one), and when the alarm may delete it by the object's own clock. Without a `clock` they are
 * the same instant. Every call is synchronous, so a decision that reads, decides and writes is one
 * uninterrupted turn of the object: nothing else runs in between.
 */
export class EntryTable {
  #created = false;

  constructor(private readonly sql: SqlStorageLike) {}

  /** Every row of `key`, live or not. */
  rows(key: string): Entry[] {
    this.#create();
    const rows = this.sql.exec(`SELECT kind, value, ends_at, sweep_at FROM ${TABLE} WHERE key = ?`, key).toArray();
    return rows.map((row) => ({
      kind: row.kind as EntryKind,
      value: row.value as string | number,
      endsAt: row.ends_at as number,
      sweepAt: row.sweep_at as number,
    }));
  }

  put(key: string, entry: Entry): void {
    this.#create();
    this.sql.exec(
      `INSERT INTO ${TABLE} (key, kind, value, ends_at, sweep_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key, kind) DO UPDATE SET value = excluded.value, ends_at = excluded.ends_at, sweep_at = excluded.sweep_at`,
      key,
      entry.kind,
      entry.value,
      entry.endsAt,
      entry.sweepAt,
    );
  }

  /** Deletes the rows of `key` of these kinds. */
  delete(key: string, kinds: readonly EntryKind[]): void {
    this.#create();
    this.sql.exec(`DELETE FROM ${TABLE} WHERE key = ? AND kind IN (${kinds.map(() => '?').join(', ')})`, key, ...kinds);
  }

  /** Deletes what may go by `now` (the object's clock); answers when the last row left may go, if any is left. */
  sweep(now: number): number | undefined {
    this.#create();
    this.sql.exec(`DELETE FROM ${TABLE} WHERE sweep_at <= ?`, now);
    const [row] = this.sql.exec(`SELECT MAX(sweep_at) AS latest FROM ${TABLE}`).toArray();
    const latest = row?.latest;
    return typeof latest === 'number' ? latest : undefined;
  }

  /** After the storage was wiped (deleteAll): the table is made again on the next use. */
  forget(): void {
    this.#created = false;
  }

  #create(): void {
    if (this.#created) return;
    // `value` has no declared type: JSON stays text and a block's end stays an integer.
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (key TEXT NOT NULL, kind INTEGER NOT NULL, value NOT NULL,
        ends_at INTEGER NOT NULL, sweep_at INTEGER NOT NULL, PRIMARY KEY (key, kind)) WITHOUT ROWID`,
    );
    this.sql.exec(`CREATE INDEX IF NOT EXISTS ${TABLE}_sweep ON ${TABLE} (sweep_at)`);
    this.#created = true;
  }
}
