import { AlgorithmCache } from './algorithms';
import { apply } from './decide';
import { EntryTable } from './entry-table';
import { parseRequest } from './parse-request';
import { PendingCharges } from './pending-charges';
import { NEEDS_SQLITE } from './warnings';
import type { StorageRefusal } from './protocol';
import type { LimiterObjectState, SqlStorageLike } from './types';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The Durable Object that keeps the limits: export it from your Worker and bind it (see the README).
 * It decides with @floodgate/core's own consumeLayers and peekLayers, the code MemoryStore runs,
 * on state, blocks and strikes in its SQLite storage. Each request is read, decided and written
 * without a single await, and a Durable Object runs one thing at a time, so every operation is
 * atomic over all the layers it carries. An alarm deletes entries once they have expired, and the
 * whole storage when none is left.
 *
 * On the older key-value storage (a class declared under `new_classes`) there is no SQL: the object
 * then answers every call with a refusal that says so (a StorageRefusal), which DurableObjectStore
 * reports once as WARN_FLOODGATE_DURABLE_OBJECT_STORAGE before deciding in the local fallback.
 *
 * @example
 * export { FloodgateObject } from '@floodgate/cloudflare';
 */
export class FloodgateObject {
  readonly #ctx: LimiterObjectState;
  /** Undefined on key-value storage: every call is refused (see #refusal). */
  readonly #table: EntryTable | undefined;
  readonly #refusal: StorageRefusal | undefined;
  readonly #algorithms = new AlgorithmCache();
  readonly #pending = new PendingCharges();
  /** When the sweep alarm is set for, or null when none is; undefined until read from storage. */
  #alarmAt: number | null | undefined;

  constructor(ctx: LimiterObjectState, _env?: unknown) {
    this.#ctx = ctx;
    const sql = sqliteOf(ctx);
    if (typeof sql === 'string') {
      this.#table = undefined;
      this.#refusal = { error: `${NEEDS_SQLITE}. The runtime said: ${sql}`, storage: 'key-value' };
    } else {
      this.#table = new EntryTable(sql);
      this.#refusal = undefined;
    }
  }

  /** Answers one POSTed WireRequest from a DurableObjectStore with a WireReply. */
  async fetch(request: Request): Promise<Response> {
    const table = this.#table;
    if (table === undefined) return json(500, this.#refusal);
    let body: unknown;
    try {
      body = await request.json();
    } catch (error) {
      return json(400, { error: `the body is not JSON: ${reason(error)}` });
    }
    let applied: ReturnType<typeof apply>;
    try {
      const wire = parseRequest(body);
      const objectNow = Date.now();
      const object = {
        table,
        algorithms: this.#algorithms,
        pending: this.#pending,
        now: wire.now ?? objectNow,
        objectNow,
      };
      applied = apply(wire, object);
    } catch (error) {
      // A malformed request or options no factory takes (400); anything else is the object's fault.
      const status = error instanceof TypeError || error instanceof RangeError ? 400 : 500;
      return json(status, { error: reason(error) });
    }
    if (applied.latestSweep > 0) await this.#sweepBy(applied.latestSweep);
    return json(200, { outcomes: applied.outcomes });
  }

  /** Deletes the expired entries; sets itself again for the last one left, or wipes the storage. */
  async alarm(): Promise<void> {
    this.#alarmAt = null;
    if (this.#table === undefined) return;
    const latest = this.#table.sweep(Date.now());
    if (latest !== undefined) {
      this.#alarmAt = latest;
      await this.#ctx.storage.setAlarm(latest);
      return;
    }
    // Nothing left: an object with no storage costs nothing, and the next request starts afresh.
    this.#table.forget();
    await this.#ctx.storage.deleteAll();
  }

  /** Makes sure an alarm will sweep at or after `sweepAt`. One alarm at a time, set only when none is. */
  async #sweepBy(sweepAt: number): Promise<void> {
    if (this.#alarmAt === undefined) this.#alarmAt = await this.#ctx.storage.getAlarm();
    if (this.#alarmAt !== null) return;
    this.#alarmAt = sweepAt;
    await this.#ctx.storage.setAlarm(sweepAt);
  }
}

/**
 * The object's SQL storage, or why there is none. workerd hands a key-value class a `sql` whose
 * every statement throws ("SQL is not enabled for this Durable Object class"), so one statement
 * that reads nothing tells the two apart before any request depends on it.
 */
function sqliteOf(ctx: LimiterObjectState): SqlStorageLike | string {
  try {
    const sql = ctx?.storage?.sql;
    if (sql === undefined) return 'ctx.storage.sql is undefined';
    sql.exec('SELECT 1');
    return sql;
  } catch (error) {
    return reason(error);
  }
}
