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
  // A frozen clock for the limiters: nothing refills while a slow browser sends, so counts are exact.
  const clock = () => 1_700_000_000_001;
  site = await serve(createPlayground({ store: new MemoryStore({ clock }), clock }));
  profile = await mkdtemp(join(tmpdir(), 'floodgate-playground-'));
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

/** Launched inside the test, so a missing Chromium fails the test instead of skipping it. */
function launch() {
  // A fresh profile each run (Playwright passes it to Chromium as --user-data-dir).
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    viewport: { width: 1400, height: 1100 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

describe('the playground in a browser', () => {
  it('runs a burst against all eight routes and draws the denied requests', async () => {
    browser = await launch();
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('requestfailed', (request) => failures.push(`${request.url()} ${request.failure()?.errorText}`));
    await page.goto(`${site.url}/`);
    await expect.poll(() => page.locator('section.card').count()).toBe(8);
    await expect.poll(() => page.locator('#store-info').textContent()).toContain('own *.localhost host');

    await page.getByLabel('One burst').check();
    await page.getByLabel('Requests per burst').fill('12');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText(/^Done: 96 requests sent\./).waitFor({ timeout: 20_000 });

    for (const id of [
      'fixed-window',
      'sliding-log',
      'sliding-window',
      'token-bucket',
      'leaky-bucket-policing',
      'gcra',
    ]) {
      const card = page.locator(`[data-algorithm="${id}"]`);
      expect(await card.locator('path.denied').count(), id).toBeGreaterThan(0);
      expect(await card.locator('dd').first().textContent(), id).toMatch(new RegExp(`^"${id}";q=\\d+;w=\\d+`));
    }
    const shaping = page.locator('[data-algorithm="leaky-bucket-shaping"]');
    expect(await shaping.locator('circle.delayed').count()).toBe(4);
    expect(await shaping.locator('path.denied').count()).toBe(7);
    const concurrency = page.locator('[data-algorithm="concurrency"]');
    // Slots come back in real time (a request holds one for 1 s), so only the first three are certain.
    expect(await concurrency.locator('line.held').count()).toBeGreaterThanOrEqual(3);
    expect(await concurrency.locator('path.denied').count()).toBeGreaterThan(0);
    expect(failures).toEqual([]);
    await page.screenshot({ path: '.reports/playground.png', fullPage: true });
  }, 60_000);
});
