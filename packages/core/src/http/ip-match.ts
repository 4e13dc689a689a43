import ipaddr from 'ipaddr.js';
import { InvalidOptionError, show } from '../base/errors';
import { parseAddress } from '../keys/address';
import { embeddedIpv4 } from '../keys/embedded-ipv4';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * True when `ip` falls in one of the ranges, as written or as the IPv4 client it embeds (mapped,
 * SIIT, NAT64, 6to4, Teredo: the forms byIp keys as IPv4), in any spelling byIp reads.
 */
export type IpMatcher = (ip: string | undefined) => boolean;

/** Parses `'203.0.113.7'`, `'10.0.0.0/8'`, `'2001:db8::/32'`; throws naming the option on anything else. */
function parseRange(name: string, entry: unknown): Range {
  if (typeof entry !== 'string')
    throw new InvalidOptionError(`${name} must be an IP address or CIDR, got ${show(entry)}`);
  try {
    if (entry.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(entry);
      return normalizeRange(address, bits);
    }
    const address = ipaddr.process(entry);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    throw new InvalidOptionError(`${name} must be an IP address or CIDR such as '10.0.0.0/8', got ${show(entry)}`);
  }
}

function normalizeRange(address: ipaddr.IPv4 | ipaddr.IPv6, bits: number): Range {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [address, bits];
}

/**
 * Builds a matcher over a list of addresses and CIDRs, validated once.
 *
 * @example ipMatcher('allowList', ['10.0.0.0/8', '::1'])('10.1.2.3') // true
 */
export function ipMatcher(name: string, entries: readonly unknown[]): IpMatcher {
  const ranges = entries.map((entry, index) => parseRange(`${name}[${index}]`, entry));
  const inRanges = (address: ipaddr.IPv4 | ipaddr.IPv6) =>
    ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
  return (ip) => {
    const address = ip === undefined ? undefined : parseAddress(ip);
    if (address === undefined) return false;
    if (address.kind() === 'ipv4') return inRanges(address);
    const ipv4 = embeddedIpv4(address as ipaddr.IPv6);
    return (ipv4 !== undefined && inRanges(ipv4)) || inRanges(address);
  };
}
