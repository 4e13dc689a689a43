import type { RateLimitState } from '../../src/index';
import { earlyDrafts } from './early-drafts';
import { legacyFields } from './legacy-fields';
import { namedDrafts } from './named-drafts';

/**
 * Header sets as servers send them, one or more per draft: from the draft texts (their examples)
 * and from what peers emit (express-rate-limit's draft-6/7/8 and legacy headers, @fastify/rate-limit
 * with and without enableDraftSpec, GitHub's REST API, Cloudflare's API). Each says what
 * readRateLimit reads from it and what politeFetch does on it.
 */
export interface HeaderSet {
  name: string;
  status: number;
  /** Field lines in order; a name may repeat (one field split over lines). */
  lines: [string, string][];
  /** What readRateLimit gives, read at `now`. */
  read: RateLimitState;
  /** politeFetch: the least it waits before retrying this answer, or before the next call (pacing); none when absent. */
  retry?: number;
  pace?: number;
  /** How far a wait may be from `retry`/`pace`: the sets that carry whole Unix seconds or dates round to 1 s. */
  within?: number;
}

export function headerSets(now: number): HeaderSet[] {
  return [...earlyDrafts(), ...namedDrafts(now), ...legacyFields(now)];
}
