import type { Quota } from './quota';

/** draft-ietf-httpapi-ratelimit-headers-06: four fields describing the binding layer. */
export function draft6Headers(binding: Quota): Record<string, string> {
  return {
    'RateLimit-Policy': `${binding.limit};w=${binding.window}`,
    'RateLimit-Limit': String(binding.limit),
    'RateLimit-Remaining': String(binding.remaining),
    'RateLimit-Reset': String(binding.reset),
  };
}
