import { mkdtempSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { limitsFromFile } from '@floodgate/config';
import { afterAll, describe, expect, it } from 'vitest';
import { parseList } from 'structured-headers';
import { drivers, get } from '../adapters/drivers.ts';
import { fixture, storeNames, useRedis, withApp } from '../adapters/suite.ts';
import { after, before, policiesOf } from './documents.ts';
import type { FloodgateWarning } from '@floodgate/core';
import type { Reply } from '../adapters/drivers.ts';

/**
 * Issue 24: limits from a file, reloaded while requests run, through every adapter and both
 * stores. A rule the change leaves alone keeps counting where it was; every request is decided by
 * one document, never a mix; a bad document is refused and the running rules kept.
 */

useRedis();
const folder = mkdtempSync(join(tmpdir(), 'floodgate-limits-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;

/** Writes the document as an editor that saves atomically does: a new file renamed over the old. */
function save(path: string, content: unknown): void {
  const temporary = `${path}.${++files}.tmp`;
  writeFileSync(temporary, typeof content === 'string' ? content : JSON.stringify(content));
  renameSync(temporary, path);
}

/** The `name=q` of each policy a response advertises, in name order. */
function advertised(reply: Reply): string {
  return parseList(reply.headers['ratelimit-policy'] as string)
    .map(([name, params]) => `${String(name)}=${String(params.get('q'))}`)
    .sort()
    .join(',');
}

describe.each(storeNames)('%s store', (storeName) => {
  describe.each(drivers)('$name', (driver) => {
    it('swaps the rules under load: no error, no half-applied document, no reset of the unchanged rule', async () => {
      const path = join(folder, `limits-${++files}.json`);
      save(path, before);
      const limits = limitsFromFile(path);
      const f = fixture(storeName);
      const warnings: FloodgateWarning[] = [];
      const options = {
        store: f.store,
        prefix: f.prefix,
        clock: f.clock,
        limits,
        onWarning: (w: FloodgateWarning) => warnings.push(w),
      };
      await withApp(driver, { options }, async (app) => {
        const replies: Reply[] = [];
        let swaps = 0;
        const load = (async () => {
          // 60 requests, 6 at a time, against `hour`'s 40: exactly 40 pass if its count never restarts.
          for (let batch = 0; batch < 10; batch++) {
            replies.push(...(await Promise.all(Array.from({ length: 6 }, () => get(app.url)))));
          }
        })();
        const swapping = (async () => {
          for (let i = 0; i < 12; i++) {
            save(path, i % 2 === 0 ? after : before);
            if (await limits.reload()) swaps++;
          }
        })();
        await Promise.all([load, swapping]);
        expect(swaps).toBe(12);
        expect(warnings).toEqual([]);
        const statuses = replies.map((reply) => reply.status);
        expect(statuses.filter((status) => status === 200)).toHaveLength(40);
        expect(statuses.filter((status) => status === 429)).toHaveLength(20);
        const seen = new Set(replies.map(advertised));
        for (const policies of seen) expect([policiesOf(before), policiesOf(after)]).toContain(policies);
        // The last document (before) is in force.
        expect(advertised(await get(app.url))).toBe(policiesOf(before));
      });
      limits.close();
    });
  });
});

describe.each(drivers)('$name: a watched file', (driver) => {
  it('applies a valid change on the next request, and refuses a bad one keeping the running rules', async () => {
    const path = join(folder, `watched-${++files}.json`);
    save(path, before);
    const limits = limitsFromFile(path, { watch: true });
    const warnings: FloodgateWarning[] = [];
    const options = { limits, onWarning: (w: FloodgateWarning) => warnings.push(w) };
    const nextUpdate = () =>
      new Promise<void>((resolve) => {
        const stop = limits.subscribe(() => {
          stop();
          resolve();
        });
      });
    await withApp(driver, { options }, async (app) => {
      const first = await get(app.url);
      expect(advertised(first)).toBe(policiesOf(before));
      expect(
        parseList(first.headers.ratelimit as string)
          .find(([name]) => name === 'hour')?.[1]
          .get('r'),
      ).toBe(39);
      // The watcher sees the change; the limiter follows the feed before this test's listener runs.
      let update = nextUpdate();
      save(path, after);
      await update;
      const second = await get(app.url);
      expect(advertised(second)).toBe(policiesOf(after));
      expect(
        parseList(second.headers.ratelimit as string)
          .find(([name]) => name === 'hour')?.[1]
          .get('r'),
      ).toBe(38);

      update = nextUpdate();
      save(path, '{ "rules": [ { "name": "hour", ');
      await update;
      update = nextUpdate();
      save(path, {
        rules: [{ name: 'hour', key: { source: 'ip' }, algorithm: { type: 'fixedWindow', limit: 0, window: '1h' } }],
      });
      await update;
      update = nextUpdate();
      // Valid as a document, refused by the limiter: a penalty on a key every client shares.
      save(path, {
        rules: [
          {
            name: 'all',
            key: { source: 'global' },
            algorithm: { type: 'fixedWindow', limit: 5, window: '1h' },
            blockDuration: '1m',
          },
        ],
      });
      await update;
      const third = await get(app.url);
      expect(advertised(third)).toBe(policiesOf(after));
      expect(
        parseList(third.headers.ratelimit as string)
          .find(([name]) => name === 'hour')?.[1]
          .get('r'),
      ).toBe(37);
      expect(warnings.map((w) => w.code)).toEqual(new Array(3).fill('WARN_FLOODGATE_LIMITS_REJECTED'));
      expect(warnings[0]?.message).toContain(`limits file ${path} is not JSON`);
      expect(warnings[1]?.message).toContain(`limits file ${path}.rules[0].algorithm: fixedWindow.limit`);
      expect(warnings[2]?.message).toContain('blockDuration');
    });
    limits.close();
  });
});

describe('limitsFromFile at start-up', () => {
  it('throws a coded error naming the file and the field, so an app never starts without its limits', () => {
    const path = join(folder, `bad-${++files}.json`);
    save(path, { rules: [{ name: 'ip', key: { source: 'ip' }, algorithm: { type: 'slidingWindow', limit: 10 } }] });
    expect(() => limitsFromFile(path)).toThrow(
      expect.objectContaining({
        code: 'ERR_FLOODGATE_INVALID_OPTION',
        message: expect.stringContaining(`limits file ${path}.rules[0].algorithm: slidingWindow.window`),
      }),
    );
    expect(() => limitsFromFile(join(folder, 'missing.json'))).toThrow(/ENOENT/);
  });
});
