import { describe, expect, it } from 'vitest';
import { buildHeaders, createLimiter, fixedWindow, layered, MemoryStore } from '@floodgate/core';
import { decision, layer, NOW } from './decisions';
import { contextOf } from '../keys/context';

const single = decision('ip', [layer({ rule: 'ip' })]);
const legacy = { 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '99', 'X-RateLimit-Reset': '1700000031' };

describe('buildHeaders modes', () => {
  it('draft-6', () => {
    expect(buildHeaders(single, { standardHeaders: 'draft-6', now: NOW })).toEqual({
      'RateLimit-Policy': '100;w=60',
      'RateLimit-Limit': '100',
      'RateLimit-Remaining': '99',
      'RateLimit-Reset': '31',
      ...legacy,
    });
  });

  it('draft-7', () => {
    expect(buildHeaders(single, { standardHeaders: 'draft-7', legacyHeaders: false, now: NOW })).toEqual({
      RateLimit: 'limit=100, remaining=99, reset=31',
      'RateLimit-Policy': '100;w=60',
    });
  });

  it('draft-8 is the default, with legacy headers on by default', () => {
    expect(buildHeaders(single, { now: NOW })).toEqual({
      'RateLimit-Policy': '"ip";q=100;w=60',
      RateLimit: '"ip";r=99;t=31',
      ...legacy,
    });
  });

  it('draft-8 lists every layer, the binding one first', () => {
    const results = [
      layer({ rule: 'user', limit: 50, remaining: 49, window: 10_000, resetAt: NOW + 2_001 }),
      layer({ rule: 'ip', limit: 300, remaining: 12, window: 60_000, resetAt: NOW + 41_000 }),
    ];
    expect(buildHeaders(decision('ip', results), { legacyHeaders: false, now: NOW })).toEqual({
      'RateLimit-Policy': '"ip";q=300;w=60, "user";q=50;w=10',
      RateLimit: '"ip";r=12;t=41, "user";r=49;t=3',
    });
  });

  it('legacy only, and nothing at all', () => {
    expect(buildHeaders(single, { standardHeaders: false, now: NOW })).toEqual(legacy);
    expect(buildHeaders(single, { standardHeaders: false, legacyHeaders: false, now: NOW })).toEqual({});
  });

  it('names concurrency quotas in concurrent requests', () => {
    const slots = decision('slots', [
      layer({ rule: 'slots', kind: 'concurrency', limit: 5, remaining: 4, window: 30_000 }),
    ]);
    expect(buildHeaders(slots, { legacyHeaders: false, now: NOW })['RateLimit-Policy']).toBe(
      '"slots";q=5;w=30;qu="concurrent-requests"',
    );
  });
});

describe('buildHeaders on denied decisions', () => {
  const denied = (retryAfter: number) =>
    decision('ip', [layer({ rule: 'ip', allowed: false, remaining: 0, retryAfter, resetAt: NOW + 60_000 })]);

  it.each([
    [1, '1'],
    [999, '1'],
    [1000, '1'],
    [1001, '2'],
    [59_999, '60'],
  ])('Retry-After for %i ms is %s', (ms, seconds) => {
    expect(buildHeaders(denied(ms), { standardHeaders: false, legacyHeaders: false, now: NOW })).toEqual({
      'Retry-After': seconds,
    });
  });

  it('sends no Retry-After for a refusal that no wait can cure (retryAfter 0)', () => {
    expect(buildHeaders(denied(0), { standardHeaders: false, legacyHeaders: false, now: NOW })).toEqual({});
  });

  it('advertises the reset of a denied layer as its Retry-After, not its full replenishment', () => {
    const headers = buildHeaders(denied(1_500), { standardHeaders: 'draft-6', now: NOW });
    expect(headers).toEqual({
      'RateLimit-Policy': '100;w=60',
      'RateLimit-Limit': '100',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '2',
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '1700000002',
      'Retry-After': '2',
    });
  });

  it('draft-8 with two layers: the denying layer first, each with its own reset', () => {
    const results = [
      layer({ rule: 'ip', limit: 300, remaining: 12, window: 60_000, resetAt: NOW + 41_000 }),
      layer({
        rule: 'user',
        allowed: false,
        limit: 50,
        remaining: 0,
        window: 10_000,
        resetAt: NOW + 9_000,
        retryAfter: 2_100,
      }),
    ];
    expect(buildHeaders(decision('user', results), { now: NOW })).toEqual({
      'RateLimit-Policy': '"user";q=50;w=10, "ip";q=300;w=60',
      RateLimit: '"user";r=0;t=3, "ip";r=12;t=41',
      'X-RateLimit-Limit': '50',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '1700000003',
      'Retry-After': '3',
    });
  });

  it('gives a decision without layers no rate-limit fields, but Retry-After when denied', () => {
    expect(buildHeaders(decision(undefined, []), { now: NOW })).toEqual({});
    const unavailable = decision(undefined, [], { allowed: false, retryAfter: 4_200, unavailable: true });
    expect(buildHeaders(unavailable, { now: NOW })).toEqual({ 'Retry-After': '5' });
  });

  it('never sends a negative remaining or reset', () => {
    const stale = decision('ip', [layer({ rule: 'ip', remaining: -3, resetAt: NOW - 5_000 })]);
    expect(buildHeaders(stale, { standardHeaders: 'draft-7', legacyHeaders: false, now: NOW })).toEqual({
      RateLimit: 'limit=100, remaining=0, reset=0',
      'RateLimit-Policy': '100;w=60',
    });
  });
});

describe('buildHeaders on a limiter decision', () => {
  it('states what the limiter decided at the injected instant', async () => {
    let now = 1_020_000;
    const clock = () => now;
    const limiter = createLimiter({
      store: new MemoryStore({ clock }),
      clock,
      limits: layered({ ip: fixedWindow({ limit: 2, window: '1m' }) }),
    });
    const ctx = contextOf({ ip: '203.0.113.7' });
    await limiter.consume(ctx);
    now = 1_030_000;
    expect(buildHeaders(await limiter.consume(ctx), { now })).toEqual({
      'RateLimit-Policy': '"ip";q=2;w=60',
      RateLimit: '"ip";r=0;t=50',
      'X-RateLimit-Limit': '2',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '1080',
    });
    now = 1_050_000;
    expect(buildHeaders(await limiter.consume(ctx), { now })).toEqual({
      'RateLimit-Policy': '"ip";q=2;w=60',
      RateLimit: '"ip";r=0;t=30',
      'X-RateLimit-Limit': '2',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '1080',
      'Retry-After': '30',
    });
  });
});

describe('buildHeaders rejects bad options', () => {
  it.each([
    [
      { standardHeaders: 'draft-9' },
      `buildHeaders.standardHeaders must be one of 'draft-6', 'draft-7', 'draft-8', 'draft-11', false, got "draft-9"`,
    ],
    [
      { standardHeaders: true },
      `buildHeaders.standardHeaders must be one of 'draft-6', 'draft-7', 'draft-8', 'draft-11', false, got true`,
    ],
    [{ legacyHeaders: 'yes' }, 'buildHeaders.legacyHeaders must be a boolean, got "yes"'],
    [{ now: Number.NaN }, 'buildHeaders.now must be a finite number of epoch milliseconds, got NaN'],
    [
      { draft: 8 },
      'buildHeaders: unknown option "draft"; expected one of standardHeaders, legacyHeaders, partitionKey, now',
    ],
  ])('%o', (options, message) => {
    expect(() => buildHeaders(single, options as never)).toThrow(
      expect.objectContaining({ message, code: 'ERR_FLOODGATE_INVALID_OPTION' }),
    );
  });
});
