import { InvalidOptionTypeError, show } from '../errors';

const FORM_KEYS = ['limit', 'window', 'limits'];

/**
 * A route's own options over the app-wide ones (Fastify `config.rateLimit`). A route that gives
 * `limit`/`window`/`limits` replaces the app's layers; without its own `prefix` it counts under
 * `<prefix>.<route tag>`, so its layers never share (or clash with) the app-wide counters.
 */
export function mergeRouteOptions(
  where: string,
  base: Readonly<Record<string, unknown>>,
  route: unknown,
  routeId: string,
): Record<string, unknown> {
  if (typeof route !== 'object' || route === null || Array.isArray(route)) {
    throw new InvalidOptionTypeError(`${where} must be an options object or false, got ${show(route)}`);
  }
  const own = route as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...base };
  if (FORM_KEYS.some((key) => own[key] !== undefined)) for (const key of FORM_KEYS) delete merged[key];
  Object.assign(merged, own);
  if (own.prefix === undefined) merged.prefix = `${(base.prefix as string | undefined) ?? 'fg'}.r${routeTag(routeId)}`;
  return merged;
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
