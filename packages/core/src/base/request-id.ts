/**
 * Ids for the requests whose layers store something per request (sliding log entries,
 * concurrency leases): a random prefix drawn once per process, then a counter. Unique across
 * processes sharing a store, and far cheaper per request than a UUID. The prefix is drawn on first
 * use, not when the module loads: workerd refuses random values in a Worker's global scope.
 */
let prefix: string | undefined;
let counter = 0;

export function nextRequestId(): string {
  prefix ??= Array.from(crypto.getRandomValues(new Uint32Array(2)), (n) => n.toString(36)).join('');
  counter = counter === Number.MAX_SAFE_INTEGER ? 1 : counter + 1;
  return `${prefix}.${counter.toString(36)}`;
}
