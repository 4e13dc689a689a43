/** A client that emits `ready` each time a connection is ready for commands (ioredis, iovalkey, node-redis). */
export interface ReadyEmitter {
  on(event: 'ready', listener: () => void): unknown;
}

const counters = new WeakMap<object, { count: number }>();

/**
 * Counts the client's `ready` events from now on, with one listener per client however many
 * stores share it (a listener per store would pile up past Node's MaxListeners warning).
 */
export function readyCounter(client: ReadyEmitter): () => number {
  let counter = counters.get(client);
  if (counter === undefined) {
    const created = { count: 0 };
    client.on('ready', () => {
      created.count++;
    });
    counters.set(client, created);
    counter = created;
  }
  const readCounter = counter;
  return () => readCounter.count;
}

export function emitsReady(client: object): client is ReadyEmitter {
  return typeof (client as Partial<ReadyEmitter>).on === 'function';
}
