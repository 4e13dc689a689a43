import { httpDate, seconds } from './clock';
import type { HeaderSet } from './index';

/** Drafts 8 to 11: RateLimit and RateLimit-Policy as Lists of named items. */
export function namedDrafts(now: number): HeaderSet[] {
  const pk = 'M2U0OGVmOWQyMmUw';
  return [
    {
      name: 'express-rate-limit draft-8, two limiters, one field line each',
      status: 200,
      lines: [
        ['RateLimit-Policy', `"100-in-1min"; q=100; w=60; pk=:${pk}:`],
        ['RateLimit', '"100-in-1min"; r=0; t=31'],
        ['RateLimit-Policy', `"1000-in-1day"; q=1000; w=86400; pk=:${pk}:`],
        ['RateLimit', '"1000-in-1day"; r=958; t=3600'],
      ],
      read: {
        source: 'draft-8',
        policies: [
          {
            name: '100-in-1min',
            partitionKey: pk,
            unit: 'requests',
            limit: 100,
            window: 60_000,
            remaining: 0,
            effectiveWindow: 31_000,
          },
          {
            name: '1000-in-1day',
            partitionKey: pk,
            unit: 'requests',
            limit: 1000,
            window: 86_400_000,
            remaining: 958,
            effectiveWindow: 3_600_000,
          },
        ],
      },
      pace: 31_000,
    },
    {
      name: 'Floodgate draft-8 with a concurrency layer spent (concurrency is not paced)',
      status: 200,
      lines: [
        ['RateLimit-Policy', '"ip";q=100;w=60, "jobs";q=4;w=60;qu="concurrent-requests"'],
        ['RateLimit', '"ip";r=57;t=41, "jobs";r=0;t=60'],
      ],
      read: {
        source: 'draft-8',
        policies: [
          { name: 'ip', unit: 'requests', limit: 100, window: 60_000, remaining: 57, effectiveWindow: 41_000 },
          {
            name: 'jobs',
            unit: 'concurrent-requests',
            limit: 4,
            window: 60_000,
            remaining: 0,
            effectiveWindow: 60_000,
          },
        ],
      },
    },
    {
      name: 'Cloudflare API',
      status: 200,
      lines: [
        ['Ratelimit', '"default";r=1199;t=300'],
        ['Ratelimit-Policy', '"default";q=1200;w=300'],
      ],
      read: {
        source: 'draft-8',
        policies: [
          {
            name: 'default',
            unit: 'requests',
            limit: 1200,
            window: 300_000,
            remaining: 1199,
            effectiveWindow: 300_000,
          },
        ],
      },
    },
    {
      name: 'Cloudflare API, 429',
      status: 429,
      lines: [
        ['Ratelimit', '"default";r=0;t=287'],
        ['Ratelimit-Policy', '"default";q=1200;w=300'],
        ['retry-after', '287'],
      ],
      read: {
        retryAfter: 287_000,
        source: 'draft-8',
        policies: [
          { name: 'default', unit: 'requests', limit: 1200, window: 300_000, remaining: 0, effectiveWindow: 287_000 },
        ],
      },
      retry: 287_000,
    },
    {
      name: 'draft-11 B.3.1: two windows, the one closest to its limit reported',
      status: 200,
      lines: [
        ['RateLimit-Policy', '"hour";q=1000;w=3600, "day";q=5000;w=86400'],
        ['RateLimit', '"day";r=100;t=36000'],
      ],
      read: {
        source: 'draft-8',
        policies: [
          {
            name: 'day',
            unit: 'requests',
            limit: 5000,
            window: 86_400_000,
            remaining: 100,
            effectiveWindow: 36_000_000,
          },
          { name: 'hour', unit: 'requests', limit: 1000, window: 3_600_000 },
        ],
      },
    },
    {
      name: 'draft-11 B.3: a 429 whose Retry-After (20 s) is shorter than t (40 s): Retry-After wins',
      status: 429,
      lines: [
        ['Retry-After', '20'],
        ['RateLimit-Policy', '"dynamic";q=100;w=60'],
        ['RateLimit', '"dynamic";r=15;t=40'],
      ],
      read: {
        retryAfter: 20_000,
        source: 'draft-8',
        policies: [
          { name: 'dynamic', unit: 'requests', limit: 100, window: 60_000, remaining: 15, effectiveWindow: 40_000 },
        ],
      },
      retry: 20_000,
    },
    {
      name: 'drafts 8 to 11 B.2.3: a 429 without Retry-After waits for t of the spent policy',
      status: 429,
      lines: [
        ['RateLimit-Policy', '"dynamic";q=15;w=20'],
        ['RateLimit', '"dynamic";r=0;t=20'],
      ],
      read: {
        source: 'draft-8',
        policies: [
          { name: 'dynamic', unit: 'requests', limit: 15, window: 20_000, remaining: 0, effectiveWindow: 20_000 },
        ],
      },
      retry: 20_000,
    },
    {
      name: 'draft-11 B.1.4: a 429 with Retry-After as an HTTP-date',
      status: 429,
      lines: [
        ['Retry-After', httpDate(seconds(now) * 1000 + 5000)],
        ['RateLimit', '"default";r=0;t=5'],
      ],
      read: {
        retryAfter: seconds(now) * 1000 + 5000 - now,
        source: 'draft-8',
        policies: [{ name: 'default', unit: 'requests', remaining: 0, effectiveWindow: 5000 }],
      },
      retry: 5000,
      within: 1000,
    },
    {
      name: 'draft-11 §3.2/§4.2: content-bytes in a partition',
      status: 200,
      lines: [
        ['RateLimit-Policy', '"peruser";q=65535;qu="content-bytes";w=10;pk=:sdfjLJUOUH==:'],
        ['RateLimit', '"peruser";r=0;t=10;pk=:sdfjLJUOUH==:'],
      ],
      read: {
        source: 'draft-8',
        policies: [
          {
            name: 'peruser',
            partitionKey: 'sdfjLJUOUA==',
            unit: 'content-bytes',
            limit: 65535,
            window: 10_000,
            remaining: 0,
            effectiveWindow: 10_000,
          },
        ],
      },
      pace: 10_000,
    },
    {
      name: 'draft-11 B.1.1: spent, no RateLimit-Policy',
      status: 200,
      lines: [['RateLimit', '"default";r=0;t=50']],
      read: {
        source: 'draft-8',
        policies: [{ name: 'default', unit: 'requests', remaining: 0, effectiveWindow: 50_000 }],
      },
      pace: 50_000,
    },
    {
      name: 'names as Tokens (ietf-wg-httpapi/ratelimit-headers#158)',
      status: 200,
      lines: [
        ['RateLimit-Policy', 'burst;q=100;w=60'],
        ['RateLimit', 'burst;r=0;t=5'],
      ],
      read: {
        source: 'draft-8',
        policies: [
          { name: 'burst', unit: 'requests', limit: 100, window: 60_000, remaining: 0, effectiveWindow: 5000 },
        ],
      },
      pace: 5000,
    },
    {
      name: 'draft-08 §3.2: qu="bytes" (a unit the registry does not list) and a policy alone',
      status: 200,
      lines: [['RateLimit-Policy', '"peruser";q=65535;qu="bytes";w=10;pk=:sdfjLJUOUH==:']],
      read: {
        source: 'draft-8',
        policies: [{ name: 'peruser', partitionKey: 'sdfjLJUOUA==', unit: 'bytes', limit: 65535, window: 10_000 }],
      },
    },
    {
      name: 'one list over two RateLimit field lines',
      status: 200,
      lines: [
        ['RateLimit', '"a";r=5;t=10'],
        ['RateLimit', '"b";r=0;t=2'],
      ],
      read: {
        source: 'draft-8',
        policies: [
          { name: 'a', unit: 'requests', remaining: 5, effectiveWindow: 10_000 },
          { name: 'b', unit: 'requests', remaining: 0, effectiveWindow: 2000 },
        ],
      },
      pace: 2000,
    },
    {
      name: 'a 503 temporary-reduced-capacity with Retry-After and a lowered policy',
      status: 503,
      lines: [
        ['Retry-After', '7'],
        ['RateLimit-Policy', '"hourly";q=10;w=3600'],
      ],
      read: {
        retryAfter: 7000,
        source: 'draft-8',
        policies: [{ name: 'hourly', unit: 'requests', limit: 10, window: 3_600_000 }],
      },
      retry: 7000,
    },
    {
      name: 'a response from a cache (Age: 30): its RateLimit fields are set aside (§7.3)',
      status: 200,
      lines: [
        ['Age', '30'],
        ['RateLimit', '"default";r=0;t=50'],
      ],
      read: { policies: [], ignored: [{ field: 'ratelimit', reason: 'cached' }] },
    },
  ];
}
