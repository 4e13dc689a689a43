import { DEFAULTS } from '../base/defaults';
import { InvalidOptionTypeError, show } from '../base/errors';
import { LIMITER_KEYS } from '../limiter/options';
import { fixedPriority } from './options';

/** Options that change what is counted or where: a route giving one counts on its own. */
const OWN_COUNTER_KEYS = ['limit', 'window', 'limits', 'store', 'prefix'];
const FORM_KEYS = ['limit', 'window', 'limits'];

/** A route's options over the app's, and whose counters the route uses. */
export interface RouteOverride {
  options: Record<string, unknown>;
  /**
   * `'own'`: the route changed what is counted (its layers, store or prefix) and counts on its own;
   * `'app'`: it changed only how requests are answered, priced or skipped, and counts in the app's
   * counters; `'app-rebuilt'`: the same, but with limiter options of its own (hooks, timeout,
   * failMode...), so it needs its own limiter over the app's store and prefix.
   */
  counters: 'own' | 'app' | 'app-rebuilt';
}

/**
 * A route's own options over the app-wide ones (Fastify `config.rateLimit`). A route that gives
 * `limit`/`window`/`limits` replaces the app's layers and, without its own `prefix`, counts under
 * `<prefix>.<route tag>`, so its layers never share (or clash with) the app-wide counters. A route
 * that only changes the status, the message, the headers, the cost or what is skipped still counts
 * in the app's counters: changing how a 429 looks must not hand out a fresh quota.
 */
export function routeOverride(
  where: string,
  base: Readonly<Record<string, unknown>>,
  route: unknown,
  routeId: string,
): RouteOverride {
  if (typeof route !== 'object' || route === null || Array.isArray(route)) {
    throw new InvalidOptionTypeError(`${where} must be an options object or false, got ${show(route)}`);
  }
  const own = route as Record<string, unknown>;
  const given = (key: string) => own[key] !== undefined;
  const merged: Record<string, unknown> = { ...base };
  if (!OWN_COUNTER_KEYS.some(given)) {
    Object.assign(merged, own);
    // A priority said as a word is the route's own answer, not a limiter option: the app's limiter serves it.
    const rebuilt = (LIMITER_KEYS as readonly string[]).some(
      (key) => given(key) && !(key === 'priority' && fixedPriority(own.priority)),
    );
    return { options: merged, counters: rebuilt ? 'app-rebuilt' : 'app' };
  }
  if (FORM_KEYS.some(given)) for (const key of FORM_KEYS) delete merged[key];
  Object.assign(merged, own);
  if (own.prefix === undefined)
    merged.prefix = `${(base.prefix as string | undefined) ?? DEFAULTS.prefix}.r${routeTag(routeId)}`;
  return { options: merged, counters: 'own' };
}

/** FNV-1a, 32 bits, hex: short and stable across processes, so every instance derives the same prefix. */
function routeTag(routeId: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < routeId.length; i++) {
    hash ^= routeId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
