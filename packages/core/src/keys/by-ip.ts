import ipaddr from 'ipaddr.js';
import { InvalidOptionError, InvalidOptionTypeError, show } from '../base/errors';
import { rejectUnknownKeys, requireObject } from '../base/validate';
import { parseAddress } from './address';
import { embeddedIpv4, isLocalUseNat64 } from './embedded-ipv4';
import { perClient } from './scope';
import type { KeyFunction } from './context';

export interface ByIpOptions {
  /**
   * IPv6 clients are grouped by this prefix length (1-128), so a host that owns a whole prefix
   * cannot rotate addresses to escape its limit. Default 56 (a typical end-site allocation);
   * 128 keys every IPv6 address on its own.
   */
  ipv6Subnet?: number;
  /**
   * The key used when the framework resolved no client address (a unix socket, a misconfigured
   * proxy): such requests share one bucket and stay limited. Default `'unknown'`. Give
   * `fallback: undefined` explicitly to make the layer not apply to them instead.
   */
  fallback?: string | undefined;
}

/** byIp's options after validation. */
export interface IpKeyConfig {
  ipv6Subnet: number;
  fallback: string | undefined;
}

/**
 * Keys a layer by client address, as the framework's trusted-proxy logic resolved it.
 * An IPv6 address that embeds an IPv4 client counts as that IPv4 address: IPv4-mapped
 * (`::ffff:203.0.113.7`), SIIT (`::ffff:0:203.0.113.7`), NAT64 (`64:ff9b::203.0.113.7`), 6to4 and
 * Teredo (public addresses only). Other IPv6 addresses become their `/ipv6Subnet` network
 * (`2001:db8:abcd:1200::` for /56) and lose any zone id (`%eth0` names the server's interface, not
 * the client). Brackets and a port (`203.0.113.7:5678`, `[2001:db8::1]:443`, `[2001:db8::1]`) are
 * dropped. A string that is not an address is kept as it is.
 * Without an address the `fallback` key is used (default `'unknown'`), so the request is still
 * limited; `fallback: undefined` makes the layer skip such requests.
 *
 * @example byIp({ ipv6Subnet: 64 })
 */
export function byIp(options: ByIpOptions = {}): KeyFunction {
  return ipKeyFunction(parseByIpOptions('byIp', options));
}

/** The key function for validated options. */
export function ipKeyFunction({ ipv6Subnet, fallback }: IpKeyConfig): KeyFunction {
  const byIpKey: KeyFunction = (ctx) => {
    const ip = ctx.ip;
    if (typeof ip !== 'string' || ip === '') return fallback;
    return ipKey(ip, ipv6Subnet);
  };
  return perClient(byIpKey, 'address');
}

/** Validates byIp's options; `where` names the object in error messages (`byIp`, `layered.ip`). */
export function parseByIpOptions(where: string, options: unknown, extraKeys: readonly string[] = []): IpKeyConfig {
  const raw = requireObject(where, options);
  rejectUnknownKeys(where, raw, ['ipv6Subnet', 'fallback', ...extraKeys]);
  const ipv6Subnet = raw.ipv6Subnet === undefined ? 56 : subnetOption(`${where}.ipv6Subnet`, raw.ipv6Subnet);
  return { ipv6Subnet, fallback: fallbackOption(`${where}.fallback`, raw) };
}

function subnetOption(name: string, value: unknown): number {
  const message = `${name} must be an integer from 1 to 128 (an IPv6 prefix length), got ${show(value)}`;
  if (typeof value !== 'number') throw new InvalidOptionTypeError(message);
  if (!Number.isInteger(value) || value < 1 || value > 128) throw new InvalidOptionError(message);
  return value;
}

function fallbackOption(name: string, raw: Record<string, unknown>): string | undefined {
  if (!('fallback' in raw)) return 'unknown';
  const value = raw.fallback;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new InvalidOptionTypeError(`${name} must be a non-empty string or undefined, got ${show(value)}`);
  }
  return value;
}

/**
 * The key for one address string; exported for tests of the masking alone. Every form of one
 * client gives one key: IPv4 as itself, an IPv6 address that embeds an IPv4 client (mapped, SIIT,
 * NAT64, 6to4, Teredo: see embeddedIpv4) as that IPv4 address, the local-use NAT64 prefix by the
 * whole address, any other IPv6 address by its `/ipv6Subnet` network. Brackets, a port and a zone
 * id are dropped. A string that is not an address is returned as it is.
 */
export function ipKey(value: string, ipv6Subnet: number): string {
  // What nearly every request carries, as the socket reports it: answered without parsing.
  if (isPlainIpv4(value, 0)) return value;
  if (value.startsWith(MAPPED) && isPlainIpv4(value, MAPPED.length)) return value.slice(MAPPED.length);
  const address = parseAddress(value);
  if (address === undefined) return value;
  if (address.kind() === 'ipv4') return address.toString();
  const ipv6 = address as ipaddr.IPv6;
  const ipv4 = embeddedIpv4(ipv6);
  if (ipv4 !== undefined) return ipv4.toString();
  const parts = isLocalUseNat64(ipv6) ? ipv6.parts : maskParts(ipv6.parts, ipv6Subnet);
  return new ipaddr.IPv6(parts).toRFC5952String();
}

/** How a dual-stack Node server reports an IPv4 client. */
const MAPPED = '::ffff:';

/**
 * True when `value` from `start` is a dotted IPv4 address as ipaddr.js writes one (four parts of
 * 0-255 without leading zeros): its key is itself, so the parse can be skipped.
 */
function isPlainIpv4(value: string, start: number): boolean {
  const end = value.length;
  if (end - start < 7 || end - start > 15) return false;
  let parts = 0;
  let part = -1;
  let digits = 0;
  for (let i = start; i < end; i++) {
    const code = value.charCodeAt(i);
    if (code === 46) {
      if (digits === 0 || ++parts > 3) return false;
      digits = 0;
      continue;
    }
    if (code < 48 || code > 57) return false;
    if (digits === 0) part = code - 48;
    else if (part === 0) return false;
    else part = part * 10 + code - 48;
    if (++digits > 3 || part > 255) return false;
  }
  return parts === 3 && digits > 0;
}

/** Keeps the first `prefix` bits of the eight 16-bit groups and zeroes the rest. */
function maskParts(parts: readonly number[], prefix: number): number[] {
  return parts.map((part, index) => {
    const bits = Math.min(16, Math.max(0, prefix - index * 16));
    return bits === 0 ? 0 : part & ((0xffff << (16 - bits)) & 0xffff);
  });
}
