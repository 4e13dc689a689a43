import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '@floodgate/express';
import { createPlayground } from '../src/app.js';
import { serve } from './serve.ts';

// Debian's chromium (apt-get install chromium); the test fails, rather than skips, without it.
const CHROMIUM = '/usr/bin/chromium';
let site: Awaited<ReturnType<typeof serve>>;
let browser: BrowserContext | undefined;
let profile: string;

beforeAll(async () => {
  // A frozen clock for the limiters: nothing refills while the day runs, so counts are exact.
  const clock = () => 1_700_000_000_001;
  site = await serve(createPlayground({ store: new MemoryStore({ clock }), clock }));
  profile = await mkdtemp(join(tmpdir(), 'floodgate-payments-day-'));
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

describe('the payments day in a browser', () => {
  it('draws tiers running out, the flash sale stopped by the processor ceiling, and every capture and refund through', async () => {
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      viewport: { width: 1400, height: 1100 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('requestfailed', (request) => failures.push(`${request.url()} ${request.failure()?.errorText}`));
    await page.goto(`${site.url}/`);
    const day = page.locator('#payments-day');
    await expect.poll(() => day.locator('.lane').count()).toBe(4);
    await expect.poll(() => day.locator('.note').textContent()).toContain('whose last 6 only captures and refunds');

    await day.getByRole('button', { name: 'Start the payments day' }).click();
    await day.getByText('Done: 38 calls sent.').waitFor({ timeout: 30_000 });

    const lane = (id: string) => day.locator(`[data-lane="${id}"]`);
    const count = (id: string, selector: string) => lane(id).locator(selector).count();
    // Before the sale: the starter merchant runs out of its own 4, the growth one uses all of its 8.
    expect(await count('starter', 'circle.admitted')).toBe(4);
    expect(await count('starter', 'path.denied')).toBe(4);
    expect(await count('starter', 'path.by-processor')).toBe(0);
    expect(await count('growth', 'circle.admitted')).toBe(8);
    // The sale takes the ceiling down to its reserve: the rest of it, and later charges, are refused there.
    expect(await count('growth', 'path.denied.by-processor')).toBe(4);
    const sold = await count('flash', 'circle.admitted');
    expect(sold).toBeLessThanOrEqual(6);
    expect(await count('flash', 'path.denied.by-processor')).toBe(12 - sold);
    // The reserve holds every capture and refund.
    expect(await count('critical', 'circle.admitted')).toBe(6);
    expect(await count('critical', 'path.denied')).toBe(0);
    expect(await lane('critical').locator('.counts').textContent()).toBe('6 admitted, 0 denied');
    expect(failures).toEqual([]);
    await page.screenshot({ path: '.reports/payments-day.png', fullPage: true });
  }, 60_000);
});
