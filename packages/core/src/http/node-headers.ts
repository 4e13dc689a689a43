/** Node's `IncomingHttpHeaders` shape, without importing Node types. */
export type NodeHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * One header of a Node request (Express, Fastify): case-insensitive, repeated fields joined with
 * `, ` as HTTP allows.
 */
export function nodeHeader(headers: NodeHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
