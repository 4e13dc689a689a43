import type { Store } from '../store/store';
import { WarningCode } from '../base/warnings';
import type { Warn } from '../base/warnings';
import type { HttpDriver } from './driver';

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

/** Checks one request for the trust mistakes; `warn` keeps each to once. */
export function checkTrust<Req>(warn: Warn, driver: HttpDriver<Req, never>, req: Req): void {
  const trust = driver.trust(req);
  if (trust === 'all') {
    warn(
      WarningCode.permissiveTrustProxy,
      `every proxy hop is trusted (${driver.trustHint} is true), so any client can choose its IP with X-Forwarded-For and escape the limit; trust the proxy addresses instead (or a hop count, where the framework honours one)`,
    );
  } else if (trust === 'none' && driver.header(req, 'x-forwarded-for') !== undefined) {
    warn(
      WarningCode.untrustedForwardedFor,
      `a request carries X-Forwarded-For but no proxy is trusted, so every client behind the proxy shares the proxy's address; if the app runs behind a proxy, set ${driver.trustHint}`,
    );
  }
}
