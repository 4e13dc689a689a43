import { functionOption, requireObject } from '../validate';
import { clientIpResolver } from './trust';
import type { ProxyTrust } from './warnings';

/** What a runtime's `getConnInfo` returns (Hono's helpers for Workers, Deno, Bun, Node...). */
export interface ConnInfoLike {
  remote: { address?: string | undefined };
}

/** How a middleware without framework proxy logic (Hono) finds the client address. */
export interface PeerConfig<Req> {
  trust: ProxyTrust;
  /** The client address: the peer (from `getConnInfo`, else `socketAddress`), walked back through trusted proxies. */
  clientIp(req: Req): string | undefined;
}

/** Where the adapter finds the socket's peer and X-Forwarded-For when `getConnInfo` is not given. */
export interface PeerSources<Req> {
  socketAddress(req: Req): unknown;
  forwardedFor(req: Req): string | undefined;
}

/** Validates `getConnInfo` and `trustProxy` once; other keys of `options` are left to parseHttpOptions. */
export function parsePeerOptions<Req>(where: string, options: unknown, sources: PeerSources<Req>): PeerConfig<Req> {
  const raw = requireObject(where, options);
  const getConnInfo =
    raw.getConnInfo === undefined
      ? undefined
      : functionOption<(req: Req) => ConnInfoLike>(`${where}.getConnInfo`, raw.getConnInfo);
  const resolver = clientIpResolver(`${where}.trustProxy`, raw.trustProxy);
  const peerOf = (req: Req): string | undefined => {
    try {
      const address = getConnInfo === undefined ? sources.socketAddress(req) : getConnInfo(req).remote.address;
      return typeof address === 'string' && address !== '' ? address : undefined;
    } catch {
      return undefined;
    }
  };
  const untrusting = resolver.trust === 'none';
  return {
    trust: resolver.trust,
    clientIp: untrusting
      ? peerOf
      : (req) => resolver.resolve(peerOf(req), sources.forwardedFor(req)),
  };
}
