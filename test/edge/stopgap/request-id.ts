// packages/core/src/request-id.ts, with the random prefix drawn on first use instead of at load:
// see REQUEST_ID_STOPGAP in ../bundle.ts. Delete this file once core does the same.
let prefix: string | undefined;
let counter = 0;

export function nextRequestId(): string {
  prefix ??= Array.from(crypto.getRandomValues(new Uint32Array(2)), (n) => n.toString(36)).join('');
  counter = counter === Number.MAX_SAFE_INTEGER ? 1 : counter + 1;
  return `${prefix}.${counter.toString(36)}`;
}
