import { httpDate, seconds } from './clock';
import type { HeaderSet } from './index';

/** X-RateLimit-* and X-Rate-Limit-* as GitHub, @fastify/rate-limit and express-rate-limit send them. */
export function legacyFields(now: number): HeaderSet[] {
  return [
    {
      name: 'GitHub, primary limit spent: 403 with X-RateLimit-Remaining: 0',
      status: 403,
      lines: [
        ['x-ratelimit-limit', '60'],
        ['x-ratelimit-remaining', '0'],
        ['x-ratelimit-used', '60'],
        ['x-ratelimit-reset', String(seconds(now) + 60)],
        ['x-ratelimit-resource', 'core'],
      ],
      read: {
        source: 'x-ratelimit',
        policies: [
          { name: '', unit: 'requests', limit: 60, remaining: 0, effectiveWindow: (seconds(now) + 60) * 1000 - now },
        ],
      },
      retry: 60_000,
      within: 1000,
    },
    {
      name: 'GitHub, secondary limit: 403 with Retry-After',
      status: 403,
      lines: [
        ['retry-after', '60'],
        ['x-ratelimit-limit', '5000'],
        ['x-ratelimit-remaining', '4990'],
        ['x-ratelimit-reset', String(seconds(now) + 3000)],
      ],
      read: {
        retryAfter: 60_000,
        source: 'x-ratelimit',
        policies: [
          {
            name: '',
            unit: 'requests',
            limit: 5000,
            remaining: 4990,
            effectiveWindow: (seconds(now) + 3000) * 1000 - now,
          },
        ],
      },
      retry: 60_000,
    },
    {
      name: 'GitHub, a 403 that is not about rate limits',
      status: 403,
      lines: [
        ['x-ratelimit-limit', '5000'],
        ['x-ratelimit-remaining', '4990'],
      ],
      read: { source: 'x-ratelimit', policies: [{ name: '', unit: 'requests', limit: 5000, remaining: 4990 }] },
    },
    {
      name: '@fastify/rate-limit default headers, 429 (reset in seconds from now)',
      status: 429,
      lines: [
        ['x-ratelimit-limit', '1000'],
        ['x-ratelimit-remaining', '0'],
        ['x-ratelimit-reset', '30'],
        ['retry-after', '30'],
      ],
      read: {
        retryAfter: 30_000,
        source: 'x-ratelimit',
        policies: [{ name: '', unit: 'requests', limit: 1000, remaining: 0, effectiveWindow: 30_000 }],
      },
      retry: 30_000,
    },
    {
      name: 'express-rate-limit legacy headers, spent (reset in Unix seconds)',
      status: 200,
      lines: [
        ['X-RateLimit-Limit', '5'],
        ['X-RateLimit-Remaining', '0'],
        ['Date', httpDate(now)],
        ['X-RateLimit-Reset', String(seconds(now) + 30)],
      ],
      read: {
        source: 'x-ratelimit',
        policies: [
          { name: '', unit: 'requests', limit: 5, remaining: 0, effectiveWindow: (seconds(now) + 30) * 1000 - now },
        ],
      },
      pace: 30_000,
      within: 1000,
    },
    {
      name: 'X-Rate-Limit-* (the spelling Twitter used)',
      status: 200,
      lines: [
        ['x-rate-limit-limit', '900'],
        ['x-rate-limit-remaining', '0'],
        ['x-rate-limit-reset', String(seconds(now) + 45)],
      ],
      read: {
        source: 'x-ratelimit',
        policies: [
          { name: '', unit: 'requests', limit: 900, remaining: 0, effectiveWindow: (seconds(now) + 45) * 1000 - now },
        ],
      },
      pace: 45_000,
      within: 1000,
    },
    {
      name: 'X-RateLimit-Reset in Unix milliseconds, 429',
      status: 429,
      lines: [
        ['x-ratelimit-remaining', '0'],
        ['x-ratelimit-reset', String(now + 10_000)],
      ],
      read: {
        source: 'x-ratelimit',
        policies: [{ name: '', unit: 'requests', remaining: 0, effectiveWindow: 10_000 }],
      },
      retry: 10_000,
      within: 1000,
    },
  ];
}
