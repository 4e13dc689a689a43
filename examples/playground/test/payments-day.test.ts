import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '@floodgate/express';
import { createPlayground } from '../src/app.js';
import { serve } from './serve.ts';

// A frozen clock: nothing refills during a test, so every count below is exact.
const clock = () => 1_700_000_000_001;
let site: Awaited<ReturnType<typeof serve>>;

beforeAll(async () => {
  site = await serve(createPlayground({ store: new MemoryStore({ clock }), clock }));
});
afterAll(() => site.close());

/** `n` calls of one kind by one merchant in one run, one after another: status and violated layers of each. */
async function pay(run: string, route: string, merchant: string, n = 1) {
  const outcomes: { status: number; violated?: string[] }[] = [];
  for (let i = 0; i < n; i++) {
    const response = await fetch(`${site.url}/api/payments/${route}?client=${run}&merchant=${merchant}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
    });
    const body = (await response.json()) as { 'violated-policies'?: string[] };
    outcomes.push(
      response.status === 429
        ? { status: 429, violated: body['violated-policies'] ?? [] }
        : { status: response.status },
    );
  }
  return outcomes;
}

const admitted = (n: number) => new Array(n).fill({ status: 200 });

describe('the payments day routes', () => {
  it('give each merchant its tier: 4 at once for a starter, 8 for growth', async () => {
    const run = randomUUID();
    expect(await pay(run, 'charges', 'corner-cafe', 5)).toEqual([
      ...admitted(4),
      { status: 429, violated: ['merchant'] },
    ]);
    expect(await pay(run, 'charges', 'bike-shop', 9)).toEqual([
      ...admitted(8),
      { status: 429, violated: ['merchant'] },
    ]);
  });

  it('stop charges at 18 of the processor ceiling and keep the last 6 for captures and refunds', async () => {
    const run = randomUUID();
    expect(await pay(run, 'charges', 'megamart', 19)).toEqual([
      ...admitted(18),
      { status: 429, violated: ['processor'] },
    ]);
    // A merchant with its whole tier left is refused a charge, not a refund.
    expect(await pay(run, 'charges', 'corner-cafe')).toEqual([{ status: 429, violated: ['processor'] }]);
    expect(await pay(run, 'refunds', 'corner-cafe')).toEqual(admitted(1));
    expect(await pay(run, 'captures', 'bike-shop', 6)).toEqual([
      ...admitted(5),
      { status: 429, violated: ['processor'] },
    ]);
  });

  it('keep each run apart, and refuse a call without a run id or a known merchant', async () => {
    expect(await pay(randomUUID(), 'charges', 'megamart', 18)).toEqual(admitted(18));
    expect(await pay(randomUUID(), 'charges', 'megamart')).toEqual(admitted(1));
    expect((await pay(randomUUID(), 'charges', 'nobody'))[0]?.status).toBe(400);
    expect((await pay('', 'captures', 'megamart'))[0]?.status).toBe(400);
  });

  it('publish their numbers, and the page module that runs them is served and local', async () => {
    const config = await (await fetch(`${site.url}/api/payments/config`)).json();
    expect(config).toMatchObject({
      processor: { capacity: 24, refillRate: 1, reserve: 6 },
      merchants: {
        'corner-cafe': { tier: 'starter' },
        'bike-shop': { tier: 'growth' },
        megamart: { tier: 'enterprise' },
      },
    });
    const module = await fetch(`${site.url}/payments-day.js`);
    expect(module.status).toBe(200);
    const text = await module.text();
    expect(text).not.toMatch(/https?:\/\//);
    for (const [, target] of text.matchAll(/\bfrom '([^']+)'/g)) expect(target).toMatch(/^\.\/[\w-]+\.js$/);
  });
});
