import { describe, expect, it } from 'vitest';
import { createPacer } from '../src/pacer';
import type { RateLimitPolicy } from '../src/index';

const spent = (partitionKey: string): RateLimitPolicy => ({
  name: 'user',
  partitionKey,
  unit: 'requests',
  remaining: 0,
  effectiveWindow: 30_000,
});

describe('the pacer', () => {
  it('keeps policies of one name apart by partition key: one partition’s answer does not clear another’s', () => {
    const pacer = createPacer(0);
    pacer.learn('api', { policies: [spent('QQ==')] }, 0);
    pacer.learn('api', { policies: [{ ...spent('Qg=='), remaining: 50 }] }, 1000);
    expect(pacer.blockedFor('api', 1000)).toBe(29_000);
    pacer.learn('api', { policies: [{ ...spent('QQ=='), remaining: 50 }] }, 2000);
    expect(pacer.blockedFor('api', 2000)).toBe(0);
  });

  it('does not pace on a concurrency quota: it comes back as requests end, not after a time', () => {
    const pacer = createPacer(0);
    const jobs: RateLimitPolicy = {
      ...spent('QQ=='),
      name: 'jobs',
      unit: 'concurrent-requests',
      effectiveWindow: 60_000,
    };
    pacer.learn('api', { policies: [jobs, spent('QQ==')] }, 0);
    expect(pacer.blockedFor('api', 0)).toBe(30_000);
  });

  it('holds a spent policy until the Retry-After of the same answer, which takes precedence over t', () => {
    const pacer = createPacer(0);
    pacer.learn('api', { policies: [spent('QQ==')] }, 0);
    pacer.learn('api', { retryAfter: 2000, policies: [spent('QQ==')] }, 1000);
    expect(pacer.blockedFor('api', 1000)).toBe(2000);
  });
});
