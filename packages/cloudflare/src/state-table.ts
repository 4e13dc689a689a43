import type { SqlStorageLike } from './types';

const TABLE = 'floodgate_state';

/**
 * The object's keys in its SQLite storage: one row per key, its algorithm's state as JSON and when
 * it stops mattering (epoch ms). Every call is synchronous, so a decision that reads, decides and
 * writes is one uninterrupted turn of the object: nothing else runs in between.
 */
export class StateTable {
  #created = false;

  constructor(private readonly sql: SqlStorageLike) {}

  /** The state of `key`, or undefined when it has none or it has expired. */
  get(key: string, now: number): unknown {
    this.#create();
    const [row] = this.sql.exec(`SELECT state, expires_at FROM ${TABLE} WHERE key = ?`, key).toArray();
    if (row === undefined || (row.expires_at as number) <= now) return undefined;
    return JSON.parse(row.state as string);
  }

  set(key: string, state: unknown, expiresAt: number): void {
    this.#create();
    this.sql.exec(
      `INSERT INTO ${TABLE} (key, state, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET state = excluded.state, expires_at = excluded.expires_at`,
      key,
      JSON.stringify(state),
      expiresAt,
    );
  }

  /** Replaces the state and keeps the expiry (a refund shortens nothing and extends nothing). */
  replace(key: string, state: unknown): void {
    this.#create();
    this.sql.exec(`UPDATE ${TABLE} SET state = ? WHERE key = ?`, JSON.stringify(state), key);
  }

  /** Deletes what has expired by `now`; answers when the last remaining key expires, if any is left. */
  sweep(now: number): number | undefined {
    this.#create();
    this.sql.exec(`DELETE FROM ${TABLE} WHERE expires_at <= ?`, now);
    const [row] = this.sql.exec(`SELECT MAX(expires_at) AS latest FROM ${TABLE}`).toArray();
    const latest = row?.latest;
    return typeof latest === 'number' ? latest : undefined;
  }

  /** After the storage was wiped (deleteAll): the table is made again on the next use. */
  forget(): void {
    this.#created = false;
  }

  #create(): void {
    if (this.#created) return;
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (key TEXT PRIMARY KEY, state TEXT NOT NULL, expires_at INTEGER NOT NULL)`,
    );
    this.sql.exec(`CREATE INDEX IF NOT EXISTS ${TABLE}_expiry ON ${TABLE} (expires_at)`);
    this.#created = true;
  }
}
