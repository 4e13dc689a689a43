import ipaddr from 'ipaddr.js';
import { InvalidOptionError, InvalidOptionTypeError, show } from '../errors';
import { rejectUnknownKeys, requireObject } from '../validate';
import { withoutPort } from './address';
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
 * IPv4-mapped IPv6 (`::ffff:203.0.113.7`) counts as the IPv4 address; other IPv6 addresses become
 * their `/ipv6Subnet` network (`2001:db8:abcd:1200::` for /56) and lose any zone id (`%eth0` names
 * the server's interface, not the client). A port after an address (`203.0.113.7:5678`,
 * `[2001:db8::1]:443`) is dropped. A string that is not an address is kept as it is.
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

/** The key for one address string; exported for tests of the masking alone. */
export function ipKey(value: string, ipv6Subnet: number): string {
  const ip = withoutPort(value);
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return ipaddr.IPv4.parse(ip).toString();
  if (!ipaddr.IPv6.isValid(ip)) return value;
  const address = ipaddr.IPv6.parse(ip);
  if (address.range() === 'ipv4Mapped') return address.toIPv4Address().toString();
  return new ipaddr.IPv6(maskParts(address.parts, ipv6Subnet)).toRFC5952String();
}

/** Keeps the first `prefix` bits of the eight 16-bit groups and zeroes the rest. */
function maskParts(parts: readonly number[], prefix: number): number[] {
  return parts.map((part, index) => {
    const bits = Math.min(16, Math.max(0, prefix - index * 16));
    return bits === 0 ? 0 : part & ((0xffff << (16 - bits)) & 0xffff);
  });
}
