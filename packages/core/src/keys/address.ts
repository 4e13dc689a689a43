/**
 * `203.0.113.7:5678` or `[2001:db8::1]:5678`, as some proxies (Azure's among them) write
 * X-Forwarded-For. Kept as it is, the port would give every connection of a client its own bucket,
 * and a walk through trusted proxies would stop at the proxy (not a valid address).
 */
const WITH_PORT = /^(?:(\d{1,3}(?:\.\d{1,3}){3})|\[([^\]]+)\]):\d{1,5}$/;

/** The address without a port after it; anything else unchanged. */
export function withoutPort(value: string): string {
  const withPort = WITH_PORT.exec(value);
  return withPort === null ? value : ((withPort[1] ?? withPort[2]) as string);
}
