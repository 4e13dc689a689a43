import ipaddr from 'ipaddr.js';

/**
 * `203.0.113.7:5678`, `[2001:db8::1]:5678` and `[2001:db8::1]`, as some proxies (Azure's among
 * them) write X-Forwarded-For. Kept as it is, a port would give every connection of a client its
 * own bucket, and a walk through trusted proxies would stop at the proxy (not a valid address).
 */
const WRAPPED = /^(?:(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}|\[([^\]]+)\](?::\d{1,5})?)$/;

/** The address without brackets or a port after it; anything else unchanged. */
export function unwrapAddress(value: string): string {
  const wrapped = WRAPPED.exec(value);
  return wrapped === null ? value : ((wrapped[1] ?? wrapped[2]) as string);
}

/** An IP address as written, parsed: what the client's packets came from. */
export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Parses an address in any form a framework or a proxy writes one: dotted IPv4 (four decimal
 * parts only: `0x7f.1` and `127.1` are not addresses here), IPv6 in any spelling, either in
 * brackets, with or without a port, and IPv6 with a zone id (`%eth0` names the server's interface,
 * not the client, and is dropped). Undefined for anything else.
 */
export function parseAddress(value: string): IpAddress | undefined {
  const text = unwrapAddress(value);
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  const zone = text.indexOf('%');
  const bare = zone === -1 ? text : text.slice(0, zone);
  if (!ipaddr.IPv6.isValid(bare)) return undefined;
  return ipaddr.IPv6.parse(bare);
}
