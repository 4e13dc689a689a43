import { nodeHeader } from '@floodgate/core/http';
import type { NodeHeaders, NodeResponse } from '@floodgate/core/http';
import type { Context } from 'hono';

/** What @hono/node-server puts on `c.env`: the Node request, read without importing Node. */
export interface NodeBindings {
  incoming?: { headers?: NodeHeaders; socket?: { remoteAddress?: unknown } };
  outgoing?: NodeResponse;
}

export function nodeRequest(c: Context): NodeBindings['incoming'] {
  return (c.env as NodeBindings | undefined)?.incoming;
}

/**
 * A request header. On @hono/node-server the Node request's own header object is read: asking
 * `c.req` would build a Fetch `Headers` for every request.
 */
export function header(c: Context, name: string): string | undefined {
  const headers = nodeRequest(c)?.headers;
  return typeof headers === 'object' && headers !== null ? nodeHeader(headers, name) : c.req.header(name);
}
