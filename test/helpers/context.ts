import type { KeyContext } from '@floodgate/core';

interface ContextParts<Req> {
  ip?: string | undefined;
  headers?: Record<string, string>;
  req?: Req;
}

/**
 * A KeyContext for calling a limiter directly, as an adapter would build one. Header lookup is
 * case-sensitive on lower-case names, as Node's IncomingMessage is.
 *
 * @example contextOf({ ip: '203.0.113.7', headers: { 'x-user': 'u1' } })
 */
export function contextOf<Req = unknown>(parts: ContextParts<Req> = {}): KeyContext<Req> {
  const headers = parts.headers ?? {};
  return {
    ip: parts.ip,
    header: (name) => (Object.hasOwn(headers, name) ? headers[name] : undefined),
    req: parts.req ?? ({} as Req),
  };
}
