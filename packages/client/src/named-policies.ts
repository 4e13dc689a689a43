import { INVALID, bytes, count, param, positiveSeconds, seconds, text } from './sf-values';
import type { RateLimitPolicy } from './rate-limit-state';
import type { Member } from './structured-fields';

/**
 * Drafts 8 to 11: `RateLimit-Policy: "day";q=1000;w=86400` and `RateLimit: "day";r=50;t=30`, Lists
 * of Items named by a String. A Token name is read too: servers send both while
 * ietf-wg-httpapi/ratelimit-headers#158 (names as Tokens) is open.
 */

/** A `RateLimit` item (draft-11 §4.1): the available quota and the effective window. */
export interface ServiceLimit {
  name: string;
  partitionKey?: string;
  remaining: number;
  effectiveWindow?: number;
}

/** A `RateLimit-Policy` item (draft-11 §3.1). */
export interface QuotaPolicy {
  name: string;
  partitionKey?: string;
  unit: string;
  limit: number;
  window?: number;
}

/** True when every member names a policy: the draft-8+ form of either field. */
export function isNamedList(members: Member[]): boolean {
  return members.every((member) => member.value?.type === 'string' || member.value?.type === 'token');
}

/**
 * The `RateLimit` items, or undefined when one breaks the draft (`r` missing or not a non-negative
 * Integer, `t` not one, `pk` not a Byte Sequence): a malformed field is ignored whole (§7).
 * Parameters the draft does not define are comments. An item listed twice (same name and partition
 * key) counts once, as its more restrictive copy.
 */
export function serviceLimits(members: Member[]): ServiceLimit[] | undefined {
  const limits: ServiceLimit[] = [];
  for (const member of members) {
    const params = member.params;
    const remaining = param(params, 'r', count);
    const effectiveWindow = param(params, 't', seconds);
    const partitionKey = param(params, 'pk', bytes);
    if (remaining === undefined || remaining === INVALID || effectiveWindow === INVALID || partitionKey === INVALID) {
      return undefined;
    }
    const limit = defined({ name: nameOf(member), partitionKey, remaining, effectiveWindow });
    const twin = limits.findIndex((other) => sameKey(other, limit));
    if (twin === -1) limits.push(limit);
    else if (stricter(limit, limits[twin] as ServiceLimit)) limits[twin] = limit;
  }
  return limits;
}

/**
 * The `RateLimit-Policy` items, or undefined when one breaks the draft (`q` missing or not a
 * non-negative Integer, `w` not a positive Integer, `qu` not a String, `pk` not a Byte Sequence).
 * A policy listed twice keeps its first copy: the field is informative (§7).
 */
export function quotaPolicies(members: Member[]): QuotaPolicy[] | undefined {
  const policies: QuotaPolicy[] = [];
  for (const member of members) {
    const params = member.params;
    const limit = param(params, 'q', count);
    const window = param(params, 'w', positiveSeconds);
    const unit = param(params, 'qu', text);
    const partitionKey = param(params, 'pk', bytes);
    if (
      limit === undefined ||
      limit === INVALID ||
      window === INVALID ||
      unit === INVALID ||
      partitionKey === INVALID
    ) {
      return undefined;
    }
    const policy = defined({ name: nameOf(member), partitionKey, unit: unitOf(unit), limit, window });
    if (!policies.some((other) => sameKey(other, policy))) policies.push(policy);
  }
  return policies;
}

/**
 * One policy per `RateLimit` item, joined with the `RateLimit-Policy` item of the same name (and
 * partition key, when both carry one), then the policies no `RateLimit` item mentions.
 */
export function joinPolicies(limits: ServiceLimit[], policies: QuotaPolicy[]): RateLimitPolicy[] {
  const unused = new Set(policies);
  const joined: RateLimitPolicy[] = limits.map((limit) => {
    const policy = policies.find((candidate) => unused.has(candidate) && joins(candidate, limit));
    if (policy !== undefined) unused.delete(policy);
    return defined({
      name: limit.name,
      partitionKey: limit.partitionKey ?? policy?.partitionKey,
      unit: policy?.unit ?? 'requests',
      limit: policy?.limit,
      window: policy?.window,
      remaining: limit.remaining,
      effectiveWindow: limit.effectiveWindow,
    });
  });
  for (const policy of unused) joined.push({ ...policy });
  return joined;
}

function nameOf(member: Member): string {
  return String(member.value?.value);
}

/** The unit registry of draft-11 §10.3 lists `request` where §3.1.2 defines `requests`: both mean requests. */
function unitOf(unit: string | undefined): string {
  return unit === undefined || unit === 'request' ? 'requests' : unit;
}

type Keyed = { name: string; partitionKey?: string };

function sameKey(a: Keyed, b: Keyed): boolean {
  return a.name === b.name && a.partitionKey === b.partitionKey;
}

function joins(policy: QuotaPolicy, limit: ServiceLimit): boolean {
  if (policy.name !== limit.name) return false;
  return policy.partitionKey === undefined || limit.partitionKey === undefined || sameKey(policy, limit);
}

/** Less quota available, or as little for longer. */
function stricter(a: ServiceLimit, b: ServiceLimit): boolean {
  if (a.remaining !== b.remaining) return a.remaining < b.remaining;
  return (a.effectiveWindow ?? -1) > (b.effectiveWindow ?? -1);
}

type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** The object without its undefined properties, so results compare and print cleanly. */
function defined<T extends object>(object: T): Defined<T> {
  for (const key of Object.keys(object) as (keyof T)[]) if (object[key] === undefined) delete object[key];
  return object as Defined<T>;
}
