import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlayground } from '../src/app.js';
import { serve } from './serve.ts';

// Debian's chromium (apt-get install chromium); the test fails, rather than skips, without it.
const CHROMIUM = '/usr/bin/chromium';
let site: Awaited<ReturnType<typeof serve>>;
let browser: BrowserContext | undefined;
let profile: string;

beforeAll(async () => {
  site = await serve(createPlayground());
  profile = await mkdtemp(join(tmpdir(), 'floodgate-adaptive-'));
});

afterAll(async () => {
  await fetch(`${site.url}/api/adaptive/load?on=false`, { method: 'POST' }).catch(() => {});
  await browser?.close();
  await site?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

interface Point {
  limit: number;
  shed: number;
  serviceMs: number;
}

const state = async (): Promise<{ running: boolean; points: Point[] }> =>
  (await fetch(`${site.url}/api/adaptive/state`)).json() as Promise<{ running: boolean; points: Point[] }>;

describe('the adaptive concurrency card in a browser', () => {
  it('plots the limit and latency live, and the limit falls when the slider slows the dependency', async () => {
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      viewport: { width: 1400, height: 1100 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(`${site.url}/`);
    const card = page.locator('#adaptive');
    await expect.poll(() => card.locator('.note').textContent()).toContain('4 workers');

    await card.getByRole('button', { name: 'Start the load' }).click();
    await card.getByRole('button', { name: 'Stop the load' }).waitFor();
    const pointsOf = async (series: string) =>
      ((await card.locator(`svg.adaptive-chart polyline[data-series="${series}"]`).getAttribute('points')) ?? '').split(
        ' ',
      ).length;
    await expect.poll(() => pointsOf('limit'), { timeout: 20_000 }).toBeGreaterThan(8);
    const before = (await state()).points.at(-1)?.limit ?? 0;

    // 400 ms a call: 10 calls a second for 60 sent: the layer must shed, and its limit comes down.
    await card.locator('input[name="service"]').fill('400');
    await expect.poll(async () => (await state()).points.at(-1)?.serviceMs, { timeout: 10_000 }).toBe(400);
    await expect
      .poll(async () => (await state()).points.at(-1)?.limit ?? before, { timeout: 30_000, interval: 500 })
      .toBeLessThan(before);
    await expect
      .poll(() => card.locator('p[role="status"]').textContent(), { timeout: 10_000 })
      .toMatch(/[1-9]\d* shed\./);
    expect(await pointsOf('latency')).toBeGreaterThan(8);
    expect(failures).toEqual([]);
    await page.screenshot({ path: '.reports/adaptive.png', fullPage: true });

    await card.getByRole('button', { name: 'Stop the load' }).click();
    await expect.poll(async () => (await state()).running).toBe(false);
  }, 90_000);
});
