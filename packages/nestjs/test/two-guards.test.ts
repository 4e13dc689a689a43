import { byIp, fixedWindow, MemoryStore } from '@floodgate/core';
import type { FloodgateWarning } from '@floodgate/core';
import { describe, expect, it } from 'vitest';
import { FloodgateGuard } from '../src/index';
import type { NestRequest } from '../src/index';
import { platforms, startNest } from './apps';

/**
 * Two Floodgate guards on one route: the app's (APP_GUARD) and a subclass on the controllers, as
 * an app adds one for a GraphQL or tenant-aware tracker. A request is counted once per route,
 * whichever guards run, and the second guard warns of nothing.
 */

class TenantGuard extends FloodgateGuard {
  override getTracker(req: NestRequest): string | undefined {
    return req.ip;
  }
}

const T0 = Date.UTC(2026, 0, 1);
const clock = () => T0;
let sequence = 0;

async function get(base: string, path: string, method = 'GET') {
  const response = await fetch(base + path, { method });
  const body = await response.text();
  return { status: response.status, body: response.status === 200 ? JSON.parse(body) : body };
}

describe.each(platforms)('%s platform', (platform) => {
  /** The app with both guards, one store shared by a route's gates (as an app shares its Redis); no warning expected. */
  async function withTwoGuards(run: (url: string) => Promise<void>): Promise<void> {
    const warnings: string[] = [];
    const app = await startNest(
      platform,
      {
        limits: [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 3, window: '1m' }) }],
        store: new MemoryStore({ clock }),
        clock,
        prefix: `two${process.pid}x${++sequence}`,
        onWarning: (warning: FloodgateWarning) => warnings.push(warning.code),
      },
      { alsoOnControllers: TenantGuard },
    );
    try {
      await run(app.url);
      expect(warnings).toEqual([]);
    } finally {
      await app.close();
    }
  }

  it("counts a request once under the module's rules, with no warning", async () => {
    await withTwoGuards(async (url) => {
      const seen = [];
      for (let i = 0; i < 4; i++) seen.push(await get(url, '/items'));
      expect(seen.map((reply) => reply.status)).toEqual([200, 200, 200, 429]);
      expect(seen.slice(0, 3).map((reply) => reply.body.remaining)).toEqual([2, 1, 0]);
    });
  });

  it("counts a request once on a handler's own @RateLimit counter", async () => {
    await withTwoGuards(async (url) => {
      // POST /login: @RateLimit({ limit: 2, window: '1m' }), its own counter.
      const seen = [];
      for (let i = 0; i < 3; i++) seen.push(await get(url, '/login', 'POST'));
      expect(seen.map((reply) => reply.status)).toEqual([201, 201, 429]);
    });
  });

  it("counts a request once on a controller's own @RateLimit counter", async () => {
    await withTwoGuards(async (url) => {
      // LimitedController: @RateLimit({ limit: 1, window: '1m' }) on the class, a counter per handler.
      const a = [await get(url, '/limited/a'), await get(url, '/limited/a')];
      expect(a.map((reply) => reply.status)).toEqual([200, 429]);
      expect(a[0]?.body).toEqual({ remaining: 0, rule: 'ip', limit: 1 });
      expect((await get(url, '/limited/b')).status).toBe(200);
    });
  });
});
