import type { KeyContext, KeyFunction } from './context';

/**
 * Who a rule's key belongs to. `'client'`: one client (an address, a user, an API key), so a
 * control triggered by one request (`reset`, `block`, `unblock`) and a penalty may act on it.
 * `'shared'`: many clients (a global ceiling, a tenant, a route), which nothing one request
 * triggers may touch unless the operator names the rule.
 */
export type KeyScope = 'client' | 'shared';

/**
 * Marks the key functions Floodgate makes for one client. A registered symbol rather than a
 * WeakSet: a key function made by another loaded copy of the package is recognised too.
 * `'address'`: the client's address, which is that client's own only when the request has one
 * (without one, byIp counts every such request under one fallback key).
 */
const SCOPE = Symbol.for('floodgate.keyScope');
type Mark = 'client' | 'address';

/** Returns `fn`, marked as keying one client. */
export function perClient<F extends KeyFunction<never>>(fn: F, mark: Mark = 'client'): F {
  Object.defineProperty(fn, SCOPE, { value: mark });
  return fn;
}

/** The scope a rule gets when it names none: `'client'` for byIp, byUser and byApiKey, else `'shared'`. */
export function defaultScope(key: unknown): KeyScope {
  const mark = typeof key === 'function' ? (key as unknown as Record<symbol, unknown>)[SCOPE] : undefined;
  return mark === 'client' || mark === 'address' ? 'client' : 'shared';
}

/** Whether a client-scope layer's key is this request's own (byIp without an address is everyone's fallback). */
export function ownedBy(key: unknown, ctx: KeyContext<unknown>): boolean {
  if ((key as Record<symbol, unknown>)[SCOPE] !== 'address') return true;
  return typeof ctx.ip === 'string' && ctx.ip !== '';
}
