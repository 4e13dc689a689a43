import type { Quota } from './quota';

/** The de facto `X-RateLimit-*` fields for the binding layer; the reset is Unix epoch seconds. */
export function legacyHeaders(binding: Quota): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(binding.limit),
    'X-RateLimit-Remaining': String(binding.remaining),
    'X-RateLimit-Reset': String(binding.resetEpoch),
  };
}
