/**
 * Every default in one place: the options parsers fill these in when an option is not given, and
 * the docs (JSDoc, READMEs) name the same values.
 */
export const DEFAULTS = {
  /** Start of every key (createLimiter, the middleware). */
  prefix: 'fg',
  /** Deadline of a store call, ms. */
  timeout: 100,
  failMode: 'local',
  instances: 1,
  breaker: { failureThreshold: 5, failureWindow: 10_000, cooldown: 30_000, probeInterval: 1000 },
  /** Keys the deny cache holds at most. */
  denyCacheKeys: 10_000,
  /** Keys the local fallback holds at most, whatever the number of clients in an outage. */
  fallbackKeys: 10_000,
  /** Keys a MemoryStore holds at most. */
  memoryStoreKeys: 100_000,
  /** Status of a denied request. */
  statusCode: 429,
  /** The status route's own limit: calls per client address per window (ms) on each instance, and the addresses counted at most. */
  statusBudget: { limit: 60, window: 60_000, keys: 10_000 },
  standardHeaders: 'draft-8',
  legacyHeaders: true,
} as const;
