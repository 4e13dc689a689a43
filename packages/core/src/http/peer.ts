import { show } from '../base/errors';
import { functionOption, requireObject } from '../base/validate';
import { WarningCode } from '../base/warnings';
import type { Warn } from '../base/warnings';
import { clientIpResolver } from './trust';
import type { ProxyTrust } from './driver';

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

/**
 * Validates `getConnInfo` and `trustProxy` once; other keys of `options` are left to parseHttpOptions.
 *
 * Where there is a socket (Node), its peer address is the client's, whatever `getConnInfo` says:
 * a `getConnInfo` written for another runtime reads a header there (Workers' reads
 * CF-Connecting-IP), which on Node is whatever the client sends. A disagreement is reported once
 * (WARN_FLOODGATE_CONN_INFO_HEADER). Client headers are believed only through `trustProxy`.
 */
export function parsePeerOptions<Req>(
  where: string,
  options: unknown,
  sources: PeerSources<Req>,
  warn: Warn,
): PeerConfig<Req> {
  const raw = requireObject(where, options);
  const getConnInfo =
    raw.getConnInfo === undefined
      ? undefined
      : functionOption<(req: Req) => ConnInfoLike>(`${where}.getConnInfo`, raw.getConnInfo);
  const resolver = clientIpResolver(`${where}.trustProxy`, raw.trustProxy);
  let compare = getConnInfo !== undefined;
  const connInfoAddress = (req: Req): unknown => {
    try {
      return getConnInfo?.(req).remote.address;
    } catch {
      return undefined;
    }
  };
  const peerOf = (req: Req): string | undefined => {
    const socket = address(sources.socketAddress(req));
    if (socket === undefined) return address(connInfoAddress(req));
    if (compare) {
      const claimed = connInfoAddress(req);
      if (claimed !== socket) {
        compare = false;
        warn(
          WarningCode.connInfoHeader,
          `${where}.getConnInfo answered ${show(claimed)} where the socket's peer is ${show(socket)}: on Node a getConnInfo made for another runtime reads a header the client sends (Workers' reads CF-Connecting-IP), so the socket's address is used; use the getConnInfo of @hono/node-server/conninfo (or none), or set trustProxy to read X-Forwarded-For from your proxy`,
        );
      }
    }
    return socket;
  };
  const untrusting = resolver.trust === 'none';
  return {
    trust: resolver.trust,
    clientIp: untrusting ? peerOf : (req) => resolver.resolve(peerOf(req), sources.forwardedFor(req)),
  };
}

function address(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
