import type { Quota } from './quota';

/** draft-ietf-httpapi-ratelimit-headers-07: one combined `RateLimit` field for the binding layer. */
export function draft7Headers(binding: Quota): Record<string, string> {
  return {
    RateLimit: `limit=${binding.limit}, remaining=${binding.remaining}, reset=${binding.reset}`,
    'RateLimit-Policy': `${binding.limit};w=${binding.window}`,
  };
}
