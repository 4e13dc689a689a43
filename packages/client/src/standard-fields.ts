import { isNamedList, joinPolicies, quotaPolicies, serviceLimits } from './named-policies';
import { INVALID, count, seconds } from './sf-values';
import { parseDictionary, parseList } from './structured-fields';
import type { QuotaPolicy, ServiceLimit } from './named-policies';
import type { RateLimitPolicy, RateLimitSource } from './rate-limit-state';
import type { Member } from './structured-fields';

/** Called with the name of a field that is present but malformed (it is then ignored whole). */
export type Report = (field: string) => void;

export interface Reading {
  source: RateLimitSource;
  policies: RateLimitPolicy[];
}

/** A draft-6/7 `RateLimit-Policy` item: `100;w=60`. */
interface EarlyPolicy {
  limit: number;
  window: number;
}

type PolicyField = { named: QuotaPolicy[] } | { early: EarlyPolicy[] };
type LimitField = { limits: ServiceLimit[] } | { draft7: RateLimitPolicy };

/**
 * The IETF fields, in the newest form the response uses: drafts 8 to 11 (`RateLimit` and
 * `RateLimit-Policy` as Lists of named items), draft-7 (`RateLimit` as a Dictionary), draft-6
 * (`RateLimit-Limit`, `-Remaining`, `-Reset`). Each field is read or ignored on its own.
 */
export function readStandard(headers: Headers, malformed: Report): Reading | undefined {
  const policyField = readPolicyField(headers.get('ratelimit-policy'), malformed);
  const limitField = readLimitField(headers.get('ratelimit'), malformed);
  const named = policyField !== undefined && 'named' in policyField ? policyField.named : undefined;
  const early = policyField !== undefined && 'early' in policyField ? policyField.early : undefined;
  if ((limitField !== undefined && 'limits' in limitField) || named !== undefined) {
    const limits = limitField !== undefined && 'limits' in limitField ? limitField.limits : [];
    return { source: 'draft-8', policies: joinPolicies(limits, named ?? []) };
  }
  if (limitField !== undefined) {
    const policy = limitField.draft7;
    setWindow(policy, early);
    return { source: 'draft-7', policies: [policy] };
  }
  return draft6(headers, early, malformed);
}

function readPolicyField(field: string | null, malformed: Report): PolicyField | undefined {
  const members = field === null ? undefined : parseList(field);
  if (members?.length === 0) return undefined;
  const read = members === undefined ? undefined : isNamedList(members) ? named(members) : early(members);
  if (field !== null && read === undefined) malformed('ratelimit-policy');
  return read;
}

function named(members: Member[]): PolicyField | undefined {
  const policies = quotaPolicies(members);
  return policies === undefined ? undefined : { named: policies };
}

/**
 * Draft-6/7 policies: Integers with a `w` parameter, each quota at most once ("Two quota policies
 * MUST NOT be associated with the same quota units value", draft-07 §4).
 */
function early(members: Member[]): PolicyField | undefined {
  const policies: EarlyPolicy[] = [];
  for (const member of members) {
    const limit = count(member.value);
    const window = seconds(member.params.get('w'));
    if (limit === undefined || window === undefined || policies.some((p) => p.limit === limit)) return undefined;
    policies.push({ limit, window });
  }
  return { early: policies };
}

/** `RateLimit` as drafts 8 to 11 write it, else as draft-7 does, else malformed. */
function readLimitField(field: string | null, malformed: Report): LimitField | undefined {
  if (field === null) return undefined;
  const members = parseList(field);
  if (members?.length === 0) return undefined;
  const limits = members !== undefined && isNamedList(members) ? serviceLimits(members) : undefined;
  if (limits !== undefined) return { limits };
  const policy = draft7(field);
  if (policy !== undefined) return { draft7: policy };
  malformed('ratelimit');
  return undefined;
}

/** Draft-7: `RateLimit: limit=100, remaining=50, reset=30`; `limit` and `reset` are required. */
function draft7(field: string): RateLimitPolicy | undefined {
  const dictionary = parseDictionary(field);
  if (dictionary === undefined) return undefined;
  const value = (key: string): number | typeof INVALID | undefined => {
    const member = dictionary.get(key);
    return member === undefined ? undefined : (count(member.value) ?? INVALID);
  };
  const limit = value('limit');
  const remaining = value('remaining');
  const reset = value('reset');
  if (limit === undefined || limit === INVALID || reset === undefined || reset === INVALID) return undefined;
  if (remaining === INVALID) return undefined;
  const policy: RateLimitPolicy = { name: '', unit: 'requests', limit, effectiveWindow: reset * 1000 };
  if (remaining !== undefined) policy.remaining = remaining;
  return policy;
}

/**
 * Draft-6: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`, each an Integer. A List's
 * first member is read too, for the early form `RateLimit-Limit: 10, 10;w=1` (drafts 0 to 2).
 */
function draft6(headers: Headers, early: EarlyPolicy[] | undefined, malformed: Report): Reading | undefined {
  const policy: RateLimitPolicy = { name: '', unit: 'requests' };
  const read = (field: string) => {
    const text = headers.get(field);
    if (text === null) return undefined;
    const value = count(parseList(text)?.[0]?.value);
    if (value === undefined) malformed(field);
    return value;
  };
  const [limit, remaining, reset] = [read('ratelimit-limit'), read('ratelimit-remaining'), read('ratelimit-reset')];
  if (limit === undefined && remaining === undefined && reset === undefined) return undefined;
  if (limit !== undefined) policy.limit = limit;
  if (remaining !== undefined) policy.remaining = remaining;
  if (reset !== undefined) policy.effectiveWindow = reset * 1000;
  setWindow(policy, early);
  return { source: 'draft-6', policies: [policy] };
}

/** The window of the draft-6/7 policy whose quota is the limit, else of the first one. */
function setWindow(policy: RateLimitPolicy, early: EarlyPolicy[] | undefined): void {
  const chosen = early?.find((p) => p.limit === policy.limit) ?? early?.[0];
  if (chosen !== undefined) policy.window = chosen.window;
}
