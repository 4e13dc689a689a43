import { describe, expect, it } from 'vitest';
import { readRateLimit } from '../src/index';
import type { IgnoredField, RateLimitState } from '../src/index';

const NOW = Date.UTC(2026, 4, 1, 12, 0, 0, 250);

const read = (lines: [string, string][]) => readRateLimit(new Headers(lines), NOW);
const malformed = (...fields: string[]): IgnoredField[] => fields.map((field) => ({ field, reason: 'malformed' }));

interface Hostile {
  name: string;
  lines: [string, string][];
  read: RateLimitState;
}

/**
 * A field that breaks its draft is ignored whole (draft-11 §7 "Malformed RateLimit header fields
 * MUST be ignored"; RFC 9651 §2: "When field-specific constraints are violated, the entire field is
 * also ignored"), so one bad member takes its whole field down, and the other fields stay.
 */
const cases: Hostile[] = [
  {
    name: 'the largest Structured Field integer is read',
    lines: [['RateLimit', '"p";r=999999999999999;t=999999999999999']],
    read: {
      source: 'draft-8',
      policies: [
        { name: 'p', unit: 'requests', remaining: 999_999_999_999_999, effectiveWindow: 999_999_999_999_999_000 },
      ],
    },
  },
  { name: 'a 16-digit integer', lines: [['RateLimit', '"p";r=1000000000000000']], read: ignoredAs('ratelimit') },
  {
    name: 'a negative r takes the whole field, its well-formed members too',
    lines: [['RateLimit', '"a";r=5;t=1, "p";r=-1;t=2']],
    read: ignoredAs('ratelimit'),
  },
  { name: 'a decimal r', lines: [['RateLimit', '"p";r=1.5']], read: ignoredAs('ratelimit') },
  { name: 't as a String', lines: [['RateLimit', '"p";r=1;t="2"']], read: ignoredAs('ratelimit') },
  { name: 'NaN as a Token', lines: [['RateLimit', '"p";r=NaN']], read: ignoredAs('ratelimit') },
  { name: 'Infinity as a Token', lines: [['RateLimit', '"p";r=0;t=Infinity']], read: ignoredAs('ratelimit') },
  { name: 'an exponent', lines: [['RateLimit', '"p";r=1e3']], read: ignoredAs('ratelimit') },
  { name: 'a Boolean r', lines: [['RateLimit', '"p";r=?1']], read: ignoredAs('ratelimit') },
  { name: 'r missing (it is REQUIRED)', lines: [['RateLimit', '"p";t=5']], read: ignoredAs('ratelimit') },
  { name: 'an upper-case parameter key', lines: [['RateLimit', '"p";R=1']], read: ignoredAs('ratelimit') },
  { name: 'a trailing comma', lines: [['RateLimit', '"p";r=1,']], read: ignoredAs('ratelimit') },
  { name: 'an Inner List as a member', lines: [['RateLimit', '("p");r=1']], read: ignoredAs('ratelimit') },
  { name: 'an Integer where a name goes', lines: [['RateLimit', '1;r=2']], read: ignoredAs('ratelimit') },
  { name: 'pk as a String', lines: [['RateLimit', '"p";r=1;pk="abc"']], read: ignoredAs('ratelimit') },
  { name: 'pk that is not base64', lines: [['RateLimit', '"p";r=1;pk=:a*:']], read: ignoredAs('ratelimit') },
  {
    name: 'one bad line among the lines of a split field takes the field',
    lines: [
      ['RateLimit', '"a";r=5;t=10'],
      ['RateLimit', '"b";r='],
    ],
    read: ignoredAs('ratelimit'),
  },
  {
    name: 'w=0 (a window is non-zero since draft-09)',
    lines: [['RateLimit-Policy', '"a";q=1;w=0']],
    read: ignoredAs('ratelimit-policy'),
  },
  { name: 'q missing', lines: [['RateLimit-Policy', '"a";w=60']], read: ignoredAs('ratelimit-policy') },
  { name: 'qu as a Token', lines: [['RateLimit-Policy', '"a";q=1;qu=requests']], read: ignoredAs('ratelimit-policy') },
  {
    name: 'a draft-8 policy list mixed with a draft-7 one',
    lines: [['RateLimit-Policy', '"a";q=10, 50;w=60']],
    read: ignoredAs('ratelimit-policy'),
  },
  {
    name: 'draft-7: two policies with one quota ("MUST NOT", draft-07 §4)',
    lines: [
      ['RateLimit-Policy', '10;w=1, 10;w=60'],
      ['RateLimit', 'limit=10, remaining=3, reset=1'],
    ],
    read: {
      source: 'draft-7',
      policies: [{ name: '', unit: 'requests', limit: 10, remaining: 3, effectiveWindow: 1000 }],
      ignored: malformed('ratelimit-policy'),
    },
  },
  {
    name: 'draft-7 without its required reset',
    lines: [['RateLimit', 'limit=10, remaining=0']],
    read: ignoredAs('ratelimit'),
  },
  {
    name: 'draft-7 with a negative remaining',
    lines: [['RateLimit', 'limit=10, remaining=-1, reset=3']],
    read: ignoredAs('ratelimit'),
  },
  {
    name: 'a malformed RateLimit leaves a good RateLimit-Policy readable',
    lines: [
      ['RateLimit-Policy', '"p";q=10;w=60'],
      ['RateLimit', '"p";r=-3'],
    ],
    read: {
      source: 'draft-8',
      policies: [{ name: 'p', unit: 'requests', limit: 10, window: 60_000 }],
      ignored: malformed('ratelimit'),
    },
  },
  {
    name: 'a malformed draft-6 field falls back to X-RateLimit-*',
    lines: [
      ['RateLimit-Remaining', '-1'],
      ['X-RateLimit-Remaining', '0'],
      ['X-RateLimit-Reset', '3'],
    ],
    read: {
      source: 'x-ratelimit',
      policies: [{ name: '', unit: 'requests', remaining: 0, effectiveWindow: 3000 }],
      ignored: malformed('ratelimit-remaining'),
    },
  },
  {
    name: 'X-RateLimit-* with an exponent, a sign, a unit',
    lines: [
      ['X-RateLimit-Limit', '1e3'],
      ['X-RateLimit-Remaining', '-1'],
      ['X-RateLimit-Reset', '30s'],
    ],
    read: ignoredAs('x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'),
  },
  {
    name: 'a policy listed twice in RateLimit counts as its more restrictive copy',
    lines: [['RateLimit', '"p";r=5;t=10, "p";r=0;t=3, "p";r=0;t=2']],
    read: { source: 'draft-8', policies: [{ name: 'p', unit: 'requests', remaining: 0, effectiveWindow: 3000 }] },
  },
  {
    name: 'a policy listed twice in RateLimit-Policy keeps its first copy',
    lines: [['RateLimit-Policy', '"p";q=10;w=1, "p";q=1000;w=1']],
    read: { source: 'draft-8', policies: [{ name: 'p', unit: 'requests', limit: 10, window: 1000 }] },
  },
  {
    name: 'parameters in any order',
    lines: [
      ['RateLimit-Policy', '"p";w=60;qu="requests";pk=:QQ==:;q=100'],
      ['RateLimit', '"p";t=30;pk=:QQ==:;r=0'],
    ],
    read: {
      source: 'draft-8',
      policies: [
        {
          name: 'p',
          partitionKey: 'QQ==',
          unit: 'requests',
          limit: 100,
          window: 60_000,
          remaining: 0,
          effectiveWindow: 30_000,
        },
      ],
    },
  },
  {
    name: 'parameters the draft does not define are comments, whatever their type',
    lines: [['RateLimit', '"p";r=3;acme-burst=100;comment="fixed window";flag;when=@1700000000;x=-1.5']],
    read: { source: 'draft-8', policies: [{ name: 'p', unit: 'requests', remaining: 3 }] },
  },
  {
    name: 'Age above 0: every rate-limit field is set aside (§7.3); Retry-After still counts',
    lines: [
      ['Age', '5'],
      ['Retry-After', '9'],
      ['RateLimit', 'limit=10, remaining=0, reset=60'],
      ['X-RateLimit-Remaining', '0'],
    ],
    read: {
      retryAfter: 9000,
      policies: [],
      ignored: [
        { field: 'ratelimit', reason: 'cached' },
        { field: 'x-ratelimit-remaining', reason: 'cached' },
      ],
    },
  },
  {
    name: 'Age as a list: its first member counts (RFC 9111 §5.1)',
    lines: [
      ['Age', '3, 0'],
      ['RateLimit', '"p";r=0;t=9'],
    ],
    read: { policies: [], ignored: [{ field: 'ratelimit', reason: 'cached' }] },
  },
];

function ignoredAs(...fields: string[]): RateLimitState {
  return { policies: [], ignored: malformed(...fields) };
}

describe('hostile and malformed fields are ignored as the draft says, never thrown on', () => {
  it.each(cases)('$name', (hostile) => {
    expect(read(hostile.lines)).toEqual(hostile.read);
  });

  it('Age 0, or an Age that is not delta-seconds, leaves the fields read', () => {
    for (const age of ['0', 'abc', '-3', '1.5']) {
      expect(
        read([
          ['Age', age],
          ['RateLimit', '"p";r=0;t=9'],
        ]).policies,
        age,
      ).toHaveLength(1);
    }
  });

  it('a thousand policies: all read, in their order', () => {
    const items = Array.from({ length: 1000 }, (_, i) => `"p${i}";r=${i};t=1`).join(', ');
    const { policies } = read([['RateLimit', items]]);
    expect(policies.map((p) => p.remaining)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });
});
