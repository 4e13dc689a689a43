import type { HeaderSet } from './index';

/** Drafts 6 and 7: the three RateLimit-* fields, then RateLimit as a Dictionary. */
export function earlyDrafts(): HeaderSet[] {
  const reset30 = { name: '', unit: 'requests', limit: 1000, remaining: 0, effectiveWindow: 30_000 };
  return [
    {
      name: 'express-rate-limit draft-6',
      status: 200,
      lines: [
        ['RateLimit-Policy', '100;w=60'],
        ['RateLimit-Limit', '100'],
        ['RateLimit-Remaining', '0'],
        ['RateLimit-Reset', '42'],
      ],
      read: {
        source: 'draft-6',
        policies: [{ name: '', unit: 'requests', limit: 100, remaining: 0, effectiveWindow: 42_000, window: 60_000 }],
      },
      pace: 42_000,
    },
    {
      name: 'express-rate-limit draft-6 at the end of a window (it leaves RateLimit-Reset out when 0)',
      status: 200,
      lines: [
        ['RateLimit-Policy', '100;w=60'],
        ['RateLimit-Limit', '100'],
        ['RateLimit-Remaining', '0'],
      ],
      read: { source: 'draft-6', policies: [{ name: '', unit: 'requests', limit: 100, remaining: 0, window: 60_000 }] },
    },
    {
      name: '@fastify/rate-limit with enableDraftSpec, 429',
      status: 429,
      lines: [
        ['ratelimit-limit', '1000'],
        ['ratelimit-remaining', '0'],
        ['ratelimit-reset', '30'],
        ['retry-after', '30'],
      ],
      read: { retryAfter: 30_000, source: 'draft-6', policies: [reset30] },
      retry: 30_000,
    },
    {
      name: 'express-rate-limit draft-7, 429',
      status: 429,
      lines: [
        ['RateLimit-Policy', '100;w=60'],
        ['RateLimit', 'limit=100, remaining=0, reset=42'],
        ['Retry-After', '42'],
      ],
      read: {
        retryAfter: 42_000,
        source: 'draft-7',
        policies: [{ name: '', unit: 'requests', limit: 100, remaining: 0, effectiveWindow: 42_000, window: 60_000 }],
      },
      retry: 42_000,
    },
    {
      name: 'draft-07 §4: several policies; the window is that of the one whose quota is the limit',
      status: 200,
      lines: [
        ['RateLimit-Policy', '10;w=1, 50;w=60, 1000;w=3600, 5000;w=86400'],
        ['RateLimit', 'limit=50, remaining=0, reset=3'],
      ],
      read: {
        source: 'draft-7',
        policies: [{ name: '', unit: 'requests', limit: 50, remaining: 0, effectiveWindow: 3000, window: 60_000 }],
      },
      pace: 3000,
    },
    {
      name: 'draft-06 §5: the three fields without a policy',
      status: 200,
      lines: [
        ['RateLimit-Limit', '10'],
        ['RateLimit-Remaining', '1'],
        ['RateLimit-Reset', '7'],
      ],
      read: {
        source: 'draft-6',
        policies: [{ name: '', unit: 'requests', limit: 10, remaining: 1, effectiveWindow: 7000 }],
      },
    },
  ];
}
