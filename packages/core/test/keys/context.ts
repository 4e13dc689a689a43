import type { KeyContext } from '@floodgate/core';

interface ContextParts<Req> {
  ip?: string;
  headers?: Record<string, string>;
  req?: Req;
}

/** A KeyContext whose header lookup is case-sensitive on lower-case names, as Node's IncomingMessage is. */
export function contextOf<Req = unknown>(parts: ContextParts<Req> = {}): KeyContext<Req> {
  const headers = parts.headers ?? {};
  return {
    ip: parts.ip,
    header: (name) => (Object.hasOwn(headers, name) ? headers[name] : undefined),
    req: parts.req ?? ({} as Req),
  };
}
