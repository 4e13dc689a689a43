/**
 * The parts of the Cloudflare runtime this package touches, written out structurally so that it
 * needs neither `@cloudflare/workers-types` nor an import of `cloudflare:workers`: the bindings and
 * the state that workerd hands over fit them as they are.
 */

/** What `stub.fetch()` is called with and answers. */
export interface LimiterStub {
  fetch(request: Request): Promise<Response>;
}

/**
 * A Durable Object namespace binding (`env.FLOODGATE`) whose class is FloodgateObject. Ids come
 * from names only (`idFromName`), so every Worker finds the same object for the same identity.
 */
export interface LimiterNamespace {
  idFromName(name: string): unknown;
  get(id: never): LimiterStub;
}

/** SQLite storage of a Durable Object (`ctx.storage.sql`), synchronous. */
export interface SqlStorageLike {
  exec(query: string, ...bindings: (string | number | null)[]): { toArray(): Record<string, unknown>[] };
}

/** The `ctx` (DurableObjectState) a Durable Object's constructor receives. */
export interface LimiterObjectState {
  readonly storage: {
    readonly sql?: SqlStorageLike;
    getAlarm(): Promise<number | null>;
    setAlarm(scheduledTime: number): Promise<void>;
    deleteAll(): Promise<void>;
  };
}
