/**
 * The unit a quota is counted in (draft-8 and later, `qu`). The draft registers the first three;
 * any other string a server sends is passed through as it came.
 */
export type QuotaUnit = 'requests' | 'content-bytes' | 'concurrent-requests' | (string & {});

/** One quota policy as a response described it. Durations are milliseconds. */
export interface RateLimitPolicy {
  /** The policy's name (draft-8 and later, a String or a Token); `''` when the fields name none. */
  name: string;
  /**
   * The partition key (`pk`, draft-8 and later) as canonical base64, so two responses about the
   * same partition compare equal with `===`. Absent when the server sent none.
   */
  partitionKey?: string;
  /** What the quota counts (`qu`); `'requests'` unless the server said otherwise. */
  unit: QuotaUnit;
  /** Units the policy allows per window (`q`, `limit`, `RateLimit-Limit`, `X-RateLimit-Limit`). */
  limit?: number;
  /** The policy's window (`w`). */
  window?: number;
  /** Units available now (`r`, `remaining`, `RateLimit-Remaining`, `X-RateLimit-Remaining`). */
  remaining?: number;
  /**
   * The time from the response within which no more than `remaining` may be used: draft-11's
   * effective window (`t`). Older drafts and `X-RateLimit-Reset` call it the reset; either way it
   * says nothing about how much quota there is afterwards.
   */
  effectiveWindow?: number;
}

/** Which fields the policies were read from. `'draft-8'` covers drafts 8 to 11: they share one syntax. */
export type RateLimitSource = 'draft-8' | 'draft-7' | 'draft-6' | 'x-ratelimit';

/** A rate-limit field a response carried that the reader set aside. */
export interface IgnoredField {
  /** The field name, lowercase. */
  field: string;
  /**
   * `'malformed'`: not what its draft defines, so ignored whole (draft §7, RFC 9651 §2);
   * `'cached'`: the response came from a cache (`Age` above 0), so its fields may be stale (§7.3).
   */
  reason: 'malformed' | 'cached';
}

/** What a response says about its rate limits. Values that cannot be read are left out. */
export interface RateLimitState {
  /** `Retry-After` as milliseconds from the response (0 for a date already past). */
  retryAfter?: number;
  /** The fields the policies came from; undefined when there were none. */
  source?: RateLimitSource;
  /** The policies, in the order the server listed them (draft-8 and later: `RateLimit` first). */
  policies: RateLimitPolicy[];
  /** Fields present but not read, and why; absent when every field present was read. */
  ignored?: IgnoredField[];
}
