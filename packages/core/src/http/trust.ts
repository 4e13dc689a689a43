import { InvalidOptionError, InvalidOptionTypeError, show } from '../base/errors';
import { parseAddress, unwrapAddress } from '../keys/address';
import { ipMatcher } from './ip-match';
import type { ProxyTrust } from './driver';

/** Which proxies to believe: none (false), every hop (true), a hop count, or their addresses/CIDRs. */
export type TrustProxy = boolean | number | readonly string[];

/** A framework's trust setting (Express `trust proxy`, Fastify `trustProxy`) reduced to what the warnings need. */
export function describeTrust(setting: unknown): ProxyTrust {
  if (setting === true) return 'all';
  if (setting === undefined || setting === false || setting === 0 || setting === '') return 'none';
  if (Array.isArray(setting) && setting.length === 0) return 'none';
  return 'some';
}

/** Resolves the client address from the socket's peer and `X-Forwarded-For` under one trust setting. */
export interface ClientIpResolver {
  readonly trust: ProxyTrust;
  resolve(remote: string | undefined, forwardedFor: string | undefined): string | undefined;
}

/**
 * Validates a `trustProxy` option once. The hops are walked from the socket's peer backwards
 * through `X-Forwarded-For` (right to left); the first hop not trusted is the client. With no trust,
 * `X-Forwarded-For` is never read.
 *
 * @example clientIpResolver('rateLimiter.trustProxy', 1).resolve('10.0.0.2', '198.51.100.7') // '198.51.100.7'
 */
export function clientIpResolver(name: string, setting: unknown): ClientIpResolver {
  const trusts = trustPredicate(name, setting);
  const trust = describeTrust(setting);
  return {
    trust,
    resolve(remote, forwardedFor) {
      if (trust === 'none' || remote === undefined || forwardedFor === undefined) return remote;
      // Every hop as an address: brackets and a port (Azure writes them) are not part of the client's identity.
      const hops = [
        unwrapAddress(remote),
        ...forwardedFor
          .split(',')
          .map((hop) => unwrapAddress(hop.trim()))
          .reverse(),
      ];
      for (let index = 0; index < hops.length - 1; index++) {
        const hop = hops[index] as string;
        if (!trusts(hop, index)) return hop;
        if (parseAddress(hops[index + 1] as string) === undefined) return hop;
      }
      return hops[hops.length - 1];
    },
  };
}

function trustPredicate(name: string, setting: unknown): (hop: string, index: number) => boolean {
  if (setting === undefined || typeof setting === 'boolean') return () => setting === true;
  if (typeof setting === 'number') {
    if (!Number.isSafeInteger(setting) || setting < 0) {
      throw new InvalidOptionError(`${name} must be a whole number of hops >= 0, got ${show(setting)}`);
    }
    return (_hop, index) => index < setting;
  }
  if (Array.isArray(setting)) {
    const matches = ipMatcher(name, setting);
    return (hop) => matches(hop);
  }
  throw new InvalidOptionTypeError(
    `${name} must be false, true, a number of hops or a list of proxy addresses/CIDRs, got ${show(setting)}`,
  );
}
