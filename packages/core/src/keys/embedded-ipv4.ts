import ipaddr from 'ipaddr.js';

/**
 * The IPv4 client inside an IPv6 address, for the forms that carry one:
 *
 * | form                                 | prefix               | the IPv4 address                         |
 * | ------------------------------------ | -------------------- | ---------------------------------------- |
 * | IPv4-mapped (RFC 4291)               | `::ffff:0:0/96`      | the last 32 bits                         |
 * | IPv4-translated, SIIT (RFC 7915)     | `::ffff:0:0:0/96`    | the last 32 bits                         |
 * | NAT64 well-known prefix (RFC 6052)   | `64:ff9b::/96`       | the last 32 bits                         |
 * | IPv4-compatible (RFC 4291, obsolete) | `::/96` but `::`, `::1` | the last 32 bits                      |
 * | 6to4 (RFC 3056)                      | `2002::/16`          | bits 16-47, if a public address          |
 * | Teredo (RFC 4380)                    | `2001::/32`          | the last 32 bits inverted, if public     |
 *
 * Keying these by the IPv4 address lets no one into another client's bucket. An HTTP request
 * needs a TCP connection, so the sender must receive the server's replies, and replies to each of
 * these addresses are delivered to the IPv4 address it embeds: by the translator that serves the
 * prefix on the server's side (NAT64, SIIT), or over IPv4 to the 6to4 site or the Teredo client's
 * NAT. Only that IPv4 host (or someone on its path, who could use its address anyway) can send
 * requests from such an address: an IPv6 host can neither take a victim's key nor rotate through
 * 2^32 keys to escape its own. The same holds for X-Forwarded-For, which is read only through
 * trusted proxies: the hop used is the peer a trusted proxy saw on its own connection.
 *
 * 6to4 and Teredo replies may leave through a relay outside the server's network, where a private
 * IPv4 address names some other host: only a public one counts, anything else stays IPv6. The
 * local-use NAT64 prefix `64:ff9b:1::/48` (RFC 8215) leaves the position of the 32 bits to its
 * operator, so it is not read here (see isLocalUseNat64).
 */
export function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return ipv4Of(parts[6], parts[7]);
    case 'rfc6052':
      return parts[2] === 0 ? ipv4Of(parts[6], parts[7]) : undefined;
    case '6to4':
      return publicOnly(ipv4Of(parts[1], parts[2]));
    case 'teredo':
      return publicOnly(ipv4Of((parts[6] as number) ^ 0xffff, (parts[7] as number) ^ 0xffff));
    default:
      return isIpv4Compatible(parts) ? ipv4Of(parts[6], parts[7]) : undefined;
  }
}

/**
 * `64:ff9b:1::/48`: NAT64 for one network (RFC 8215), with the IPv4 address at a place the operator
 * chose (RFC 6052 formats /32 to /96). Each IPv4 client is one whole address there, so byIp keys
 * it by the whole address instead of its subnet.
 */
export function isLocalUseNat64(address: ipaddr.IPv6): boolean {
  const [a, b, c] = address.parts;
  return a === 0x64 && b === 0xff9b && c === 1;
}

/** `::a.b.c.d`: the first 96 bits zero; `::` and `::1` are the unspecified and loopback addresses. */
function isIpv4Compatible(parts: readonly number[]): boolean {
  for (let i = 0; i < 6; i++) if (parts[i] !== 0) return false;
  return parts[6] !== 0 || (parts[7] as number) > 1;
}

function ipv4Of(high: number | undefined, low: number | undefined): ipaddr.IPv4 {
  const h = high as number;
  const l = low as number;
  return new ipaddr.IPv4([h >> 8, h & 0xff, l >> 8, l & 0xff]);
}

function publicOnly(address: ipaddr.IPv4): ipaddr.IPv4 | undefined {
  return address.range() === 'unicast' ? address : undefined;
}
