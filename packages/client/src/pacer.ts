import type { RateLimitState } from './rate-limit-state';

/**
 * What one politeFetch remembers between calls: per scope (by default an origin), the instant each
 * exhausted policy's effective window ends and the instant a `Retry-After` pointed at. Entries go once they pass,
 * so memory is bounded by the scopes with a wait still ahead.
 */
export interface Pacer {
  /** Takes in what a response from `scope` said, received at `now`. */
  learn(scope: string, state: RateLimitState, now: number): void;
  /** Milliseconds until every remembered wait of `scope` has passed; 0 when none is ahead. */
  blockedFor(scope: string, now: number): number;
}

/** The key a `Retry-After` is kept under: a leading NUL cannot start a policy name from a header. */
const RETRY_AFTER = '\u0000retry-after';

/**
 * A pacer that holds a scope back once a policy has `threshold` units or fewer left, until the end
 * of its effective window (or the `Retry-After` of the same response, which takes precedence: draft
 * §7). Policies are told apart by name and partition key. Concurrency quotas are not paced: they
 * come back as requests finish, not after a time, and the response that reports one holds a unit
 * itself until it ends.
 */
export function createPacer(threshold: number): Pacer {
  const scopes = new Map<string, Map<string, number>>();

  return {
    learn(scope, state, now) {
      let until = scopes.get(scope);
      for (const policy of state.policies) {
        const key = `${policy.name}\u0000${policy.partitionKey ?? ''}`;
        const window = state.retryAfter ?? policy.effectiveWindow;
        if (window === undefined || policy.remaining === undefined || policy.unit === 'concurrent-requests') continue;
        if (policy.remaining <= threshold && window > 0) {
          until ??= new Map();
          until.set(key, now + window);
        } else {
          until?.delete(key);
        }
      }
      if (state.retryAfter !== undefined && state.retryAfter > 0) {
        until ??= new Map();
        until.set(RETRY_AFTER, Math.max(until.get(RETRY_AFTER) ?? 0, now + state.retryAfter));
      }
      if (until !== undefined && until.size > 0) scopes.set(scope, until);
      else scopes.delete(scope);
    },

    blockedFor(scope, now) {
      const until = scopes.get(scope);
      if (until === undefined) return 0;
      let latest = now;
      for (const [name, at] of until) {
        if (at <= now) until.delete(name);
        else latest = Math.max(latest, at);
      }
      if (until.size === 0) scopes.delete(scope);
      return latest - now;
    },
  };
}
