import type { Store } from '../store';
import type { FloodgateWarning } from './types';

/** Stable codes of the run-time misconfiguration warnings. */
export const WarningCode = {
  untrustedForwardedFor: 'WARN_FLOODGATE_UNTRUSTED_X_FORWARDED_FOR',
  permissiveTrustProxy: 'WARN_FLOODGATE_PERMISSIVE_TRUST_PROXY',
  undefinedIp: 'WARN_FLOODGATE_UNDEFINED_IP',
  storeReuse: 'WARN_FLOODGATE_STORE_REUSE',
  doubleCount: 'WARN_FLOODGATE_DOUBLE_COUNT',
} as const;

/** Reports each code at most once for the middleware instance that owns it. */
export function onceWarner(sink: (warning: FloodgateWarning) => void): (code: string, message: string) => void {
  const seen = new Set<string>();
  return (code, message) => {
    if (seen.has(code)) return;
    seen.add(code);
    try {
      sink({ code, message });
    } catch {
      // A logger that throws must not break the request that triggered the warning.
    }
  };
}

export function consoleWarning(warning: FloodgateWarning): void {
  console.warn(`[floodgate] ${warning.code}: ${warning.message}`);
}

const prefixesInUse = new WeakMap<Store, Set<string>>();

/** True when another middleware instance already counts under this store and prefix. */
export function claimStorePrefix(store: Store, prefix: string): boolean {
  let prefixes = prefixesInUse.get(store);
  if (prefixes === undefined) {
    prefixes = new Set();
    prefixesInUse.set(store, prefixes);
  }
  const taken = prefixes.has(prefix);
  prefixes.add(prefix);
  return taken;
}

/** What an adapter knows about the app's proxy trust, for the warnings below. */
export type ProxyTrust = 'none' | 'all' | 'some';

/** Checks one request for the trust and IP mistakes; `warn` keeps each to once. */
export function checkTrust(
  warn: (code: string, message: string) => void,
  trust: ProxyTrust,
  forwardedFor: string | undefined,
  ip: string | undefined,
  trustHint: string,
): void {
  if (trust === 'all') {
    warn(
      WarningCode.permissiveTrustProxy,
      `every proxy hop is trusted (${trustHint} is true), so any client can choose its IP with X-Forwarded-For and escape the limit; trust the proxy addresses instead (or a hop count, where the framework honours one)`,
    );
  } else if (trust === 'none' && forwardedFor !== undefined) {
    warn(
      WarningCode.untrustedForwardedFor,
      `a request carries X-Forwarded-For but no proxy is trusted, so every client behind the proxy shares the proxy's address; if the app runs behind a proxy, set ${trustHint}`,
    );
  }
  if (ip === undefined) {
    warn(
      WarningCode.undefinedIp,
      "the client IP is undefined (the socket may have closed, or the server listens on a unix socket), so byIp() counts every such request under its fallback key (default 'unknown': they all share one bucket)",
    );
  }
}
