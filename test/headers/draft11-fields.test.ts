import { describe, expect, it } from 'vitest';
import {
  buildHeaders,
  byIp,
  concurrency,
  createLimiter,
  fixedWindow,
  gcra,
  layered,
  leakyBucket,
  MemoryStore,
  slidingLog,
  slidingWindow,
  tokenBucket,
} from '@floodgate/core';
import { buildProblem } from '@floodgate/core/http';
import { parseList } from 'structured-headers';
import { contextOf } from '../helpers/context.ts';
import type { Algorithm } from '@floodgate/core';

const SECRET = 'a-secret-of-32-bytes-for-tests!!';

function limiterWith(algorithm: Algorithm, start = 1_000_000) {
  let now = start;
  const clock = () => now;
  const limiter = createLimiter({ store: new MemoryStore({ clock }), clock, limits: layered({ ip: algorithm }) });
  return {
    limiter,
    at: (ms: number) => {
      now = ms;
    },
    now: () => now,
  };
}

/** The `t` (seconds) of the only RateLimit item, or undefined when it has none. */
function effectiveWindow(headers: Record<string, string>): number | undefined {
  const [[, params] = []] = parseList(headers.RateLimit as string);
  return params?.get('t') as number | undefined;
}

const ctx = contextOf({ ip: '203.0.113.7' });

describe("draft-11's effective window (t), per algorithm", () => {
  it('fixedWindow: until the window ends', async () => {
    const { limiter, at } = limiterWith(fixedWindow({ limit: 5, window: '1m' }), 1_020_000);
    const headers = buildHeaders(await limiter.consume(ctx), { standardHeaders: 'draft-11', now: 1_020_000 });
    expect(headers['RateLimit-Policy']).toBe('"ip";q=5;w=60');
    expect(headers.RateLimit).toBe('"ip";r=4;t=60');
    at(1_050_000);
    expect(
      effectiveWindow(buildHeaders(await limiter.consume(ctx), { standardHeaders: 'draft-11', now: 1_050_000 })),
    ).toBe(30);
  });

  it.each([
    ['tokenBucket', tokenBucket({ capacity: 10, refillRate: 1 })],
    ['leakyBucket', leakyBucket({ capacity: 10, leakRate: 1 })],
    ['gcra', gcra({ rate: 1, period: '1s', burst: 9 })],
  ])('%s: until the next unit drips back, whatever was spent', async (_, algorithm) => {
    const { limiter, now } = limiterWith(algorithm);
    let decision = await limiter.consume(ctx);
    for (let i = 0; i < 5; i++) decision = await limiter.consume(ctx);
    const headers = buildHeaders(decision, { standardHeaders: 'draft-11', now: now() });
    // Six units spent at one instant, one per second comes back: the first after one second.
    expect(headers.RateLimit).toBe('"ip";r=4;t=1');
  });

  it.each([
    ['slidingWindow', slidingWindow({ limit: 6, window: '1m' })],
    ['slidingLog', slidingLog({ limit: 6, window: '1m' })],
  ])('%s: one unit at the mean rate (window / limit)', async (_, algorithm) => {
    const { limiter, now } = limiterWith(algorithm);
    let decision = await limiter.consume(ctx);
    for (let i = 0; i < 2; i++) decision = await limiter.consume(ctx);
    const t = effectiveWindow(buildHeaders(decision, { standardHeaders: 'draft-11', now: now() }));
    // Six per 60 s: one unit every 10 s on average (the exact moment depends on the request history).
    expect(t).toBe(10);
  });

  it('concurrency: no t, and the unit is concurrent-requests', async () => {
    const { limiter, now } = limiterWith(concurrency({ max: 3 }));
    const headers = buildHeaders(await limiter.consume(ctx), { standardHeaders: 'draft-11', now: now() });
    expect(headers['RateLimit-Policy']).toBe('"ip";q=3;qu="concurrent-requests"');
    expect(headers.RateLimit).toBe('"ip";r=2');
  });

  it.each([
    ['fixedWindow', fixedWindow({ limit: 2, window: '1m' })],
    ['tokenBucket', tokenBucket({ capacity: 2, refillRate: 1 })],
    ['gcra', gcra({ rate: 1, period: '7s', burst: 1 })],
    ['slidingWindow', slidingWindow({ limit: 2, window: '1m' })],
    ['slidingLog', slidingLog({ limit: 2, window: '1m' })],
  ])('%s denied: t is the wait, and Retry-After is never earlier than it (§6)', async (_, algorithm) => {
    const { limiter, now } = limiterWith(algorithm);
    await limiter.consume(ctx);
    await limiter.consume(ctx);
    const denied = await limiter.consume(ctx);
    expect(denied.allowed).toBe(false);
    const headers = buildHeaders(denied, { standardHeaders: 'draft-11', now: now() });
    const t = effectiveWindow(headers) as number;
    expect(t).toBeGreaterThan(0);
    expect(Number(headers['Retry-After'])).toBeGreaterThanOrEqual(t);
    expect(Number(headers['Retry-After'])).toBe(Math.ceil(denied.retryAfter / 1000));
  });
});

describe("draft-11's partition key (pk)", () => {
  async function pkOf(ip: string, secret = SECRET): Promise<string> {
    const { limiter, now } = limiterWith(fixedWindow({ limit: 5, window: '1m' }));
    const headers = buildHeaders(await limiter.consume(contextOf({ ip })), {
      standardHeaders: 'draft-11',
      partitionKey: { secret },
      now: now(),
    });
    const [[, policy] = []] = parseList(headers['RateLimit-Policy'] as string);
    const [[, state] = []] = parseList(headers.RateLimit as string);
    // structured-headers parses a Byte Sequence into an ArrayBuffer.
    const pk = Buffer.from(state?.get('pk') as ArrayBuffer).toString('base64');
    expect(Buffer.from(policy?.get('pk') as ArrayBuffer).toString('base64')).toBe(pk);
    return pk;
  }

  it('is stable for a client, differs between clients and secrets, and never shows the key', async () => {
    const first = await pkOf('203.0.113.7');
    expect(await pkOf('203.0.113.7')).toBe(first);
    expect(await pkOf('203.0.113.8')).not.toBe(first);
    expect(await pkOf('203.0.113.7', 'another-secret-of-32-bytes-here!')).not.toBe(first);
    expect(Buffer.from(first, 'base64').toString('latin1')).not.toContain('203.0.113');
    expect(first).toHaveLength(16);
  });

  it('is off unless asked for, and absent on a decision without keys', async () => {
    const { limiter, now } = limiterWith(fixedWindow({ limit: 5, window: '1m' }));
    const decision = await limiter.consume(ctx);
    expect(buildHeaders(decision, { standardHeaders: 'draft-11', now: now() }).RateLimit).not.toContain('pk');
    const plain = { ...decision, results: decision.results };
    expect(
      buildHeaders(plain, { standardHeaders: 'draft-11', partitionKey: { secret: SECRET }, now: now() }).RateLimit,
    ).not.toContain('pk');
  });

  it('refuses a short or missing secret with a coded error that does not repeat it', () => {
    const { limiter } = limiterWith(fixedWindow({ limit: 5, window: '1m' }));
    void limiter;
    const decision = { allowed: true, limit: 0, remaining: 0, resetAt: 0, retryAfter: 0, delay: 0 } as never;
    expect(() =>
      buildHeaders(decision, { standardHeaders: 'draft-11', partitionKey: { secret: 'short-one' } }),
    ).toThrow(
      expect.objectContaining({
        code: 'ERR_FLOODGATE_INVALID_OPTION',
        message: 'buildHeaders.partitionKey.secret must be at least 16 bytes, got 9 bytes',
      }),
    );
    expect(() => buildHeaders(decision, { partitionKey: {} as never })).toThrow(
      expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION', message: expect.stringContaining('secret') }),
    );
  });
});

describe('problem types', () => {
  it('a layer with a penalty answers abnormal-usage-detected, with the policies it violated', async () => {
    let now = 1_000_000;
    const clock = () => now;
    const limiter = createLimiter({
      store: new MemoryStore({ clock }),
      clock,
      limits: [
        { name: 'burst', key: byIp(), algorithm: fixedWindow({ limit: 1, window: '1s' }), blockDuration: '1m' },
        { name: 'hour', key: byIp(), algorithm: fixedWindow({ limit: 100, window: '1h' }) },
      ],
    });
    await limiter.consume(ctx);
    const penalised = await limiter.consume(ctx);
    expect(buildProblem(penalised)).toMatchObject({
      type: 'https://iana.org/assignments/http-problem-types#abnormal-usage-detected',
      status: 429,
      retryAfter: 60,
      'violated-policies': ['burst'],
    });
    now += 30_000;
    expect(buildProblem(await limiter.consume(ctx))).toMatchObject({
      type: 'https://iana.org/assignments/http-problem-types#abnormal-usage-detected',
      retryAfter: 30,
    });
  });

  it('a spent quota without a penalty stays quota-exceeded', async () => {
    const { limiter } = limiterWith(fixedWindow({ limit: 1, window: '1s' }));
    await limiter.consume(ctx);
    expect(buildProblem(await limiter.consume(ctx))).toMatchObject({
      type: 'https://iana.org/assignments/http-problem-types#quota-exceeded',
      'violated-policies': ['ip'],
    });
  });
});
