import { Catch } from '@nestjs/common';
import type { ArgumentsHost, ExceptionFilter, ExecutionContext } from '@nestjs/common';
import { byIp, fixedWindow, MemoryStore } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../../test/helpers/redis-server.ts';
import { FloodgateGuard, RateLimitException } from '../src/index';
import type { NestRequest } from '../src/index';
import { platforms, QUOTA_EXCEEDED_IP, startNest } from './apps';

/** What the guard promises beyond counting: filters, other contexts, a dead Redis, bad options. */

const T0 = Date.UTC(2026, 0, 1);
const clock = () => T0;
const rule = (limit: number) => [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit, window: '1m' }) }];

@Catch(RateLimitException)
class SlowDownFilter implements ExceptionFilter {
  catch(exception: RateLimitException, host: ArgumentsHost) {
    const res = host.switchToHttp().getResponse();
    const body = {
      error: 'slow down',
      retryAfterMs: exception.decision.retryAfter,
      rule: exception.decision.rule,
      problem: exception.getResponse(),
      // A denial is an answer, not a fault: the guard's exceptions carry no stack trace.
      frames: (exception.stack ?? '').split('\n').filter((line) => line.trim().startsWith('at ')).length,
    };
    if (typeof res.code === 'function') res.code(429).header('content-type', 'application/json').send(body);
    else res.status(429).json(body);
  }
}

/** A guard reading the request as a GraphQL one would be read: no response to set headers on. */
class NoResponseGuard extends FloodgateGuard {
  override getRequestResponse(context: ExecutionContext): { req: NestRequest; res: NestRequest } {
    return { req: context.switchToHttp().getRequest(), res: undefined };
  }
}

describe.each(platforms)('%s platform', (platform) => {
  it("the user's exception filter gets RateLimitException with the decision; the headers are already set", async () => {
    const app = await startNest(
      platform,
      { limits: rule(1), clock, store: new MemoryStore({ clock }) },
      {
        filters: [SlowDownFilter],
      },
    );
    try {
      expect((await fetch(`${app.url}/items`)).status).toBe(200);
      const denied = await fetch(`${app.url}/items`);
      expect(denied.status).toBe(429);
      expect(await denied.json()).toEqual({
        error: 'slow down',
        retryAfterMs: 60_000,
        rule: 'ip',
        problem: QUOTA_EXCEEDED_IP,
        frames: 0,
      });
      expect(denied.headers.get('ratelimit')).toBe('"ip";r=0;t=60');
      expect(denied.headers.get('retry-after')).toBe('60');
    } finally {
      await app.close();
    }
  });

  it('a getRequestResponse with no response (GraphQL without res) still limits, with no headers to set', async () => {
    const app = await startNest(
      platform,
      { limits: rule(2), clock, store: new MemoryStore({ clock }) },
      {
        guardClass: NoResponseGuard,
      },
    );
    try {
      const replies = [];
      for (let i = 0; i < 3; i++) replies.push(await fetch(`${app.url}/items`));
      expect(replies.map((reply) => reply.status)).toEqual([200, 200, 429]);
      expect(replies[0]?.headers.get('ratelimit')).toBeNull();
      const body = (await (replies[2] as Response).json()) as Record<string, unknown>;
      expect(body['violated-policies']).toEqual(['ip']);
    } finally {
      await app.close();
    }
  });

  it('bad options fail the app at start with a coded error naming the option', async () => {
    await expect(startNest(platform, { limit: -1, window: '1m' })).rejects.toMatchObject({
      code: 'ERR_FLOODGATE_INVALID_OPTION',
      message: expect.stringContaining('limit'),
    });
  });
});

describe('a Redis that is gone (killed)', () => {
  let redis: RedisServer;
  let client: Redis;
  beforeEach(async () => {
    redis = await startRedis();
    client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
    client.on('error', () => {}); // the reconnect attempts after the kill
    await client.connect();
  });
  afterEach(async () => {
    client.disconnect();
    await redis.stop();
  });

  it.each(platforms)(
    '%s: failMode closed answers 503 problem+json, local limits in memory, open lets all through',
    async (platform) => {
      // A frozen clock: on the real one, a minute boundary between two requests would reset the fixed window.
      const store = new RedisStore({ client, clock });
      const quiet = { onWarning: () => {}, onStoreError: () => {}, clock };
      const apps = await Promise.all(
        (['closed', 'local', 'open'] as const).map(async (failMode) => ({
          failMode,
          ...(await startNest(platform, { limits: rule(2), store, prefix: `dead-${failMode}`, failMode, ...quiet })),
        })),
      );
      try {
        for (const app of apps) expect((await fetch(`${app.url}/items`)).status, app.failMode).toBe(200);
        await redis.kill();
        const seen: Record<string, number[]> = {};
        for (const app of apps) {
          const statuses: number[] = [];
          for (let i = 0; i < 3; i++) statuses.push((await fetch(`${app.url}/items`)).status);
          seen[app.failMode] = statuses;
        }
        // local: the in-memory fallback holds the limit of 2 (the request before the kill was counted in Redis).
        expect(seen).toEqual({ closed: [503, 503, 503], local: [200, 200, 429], open: [200, 200, 200] });
        const refused = await fetch(`${apps[0]?.url}/items`);
        expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(await refused.json()).toMatchObject({ status: 503 });
      } finally {
        await Promise.all(apps.map((app) => app.close()));
      }
    },
  );
  it.each(platforms)(
    '%s: a frozen Redis answers within the timeout, failMode local keeps the limit in memory',
    async (platform) => {
      const store = new RedisStore({ client, clock });
      const app = await startNest(platform, {
        limits: rule(3),
        store,
        clock,
        prefix: 'frozen',
        timeout: 50,
        failMode: 'local',
        onWarning: () => {},
        onStoreError: () => {},
      });
      redis.signal('SIGSTOP');
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) statuses.push((await fetch(`${app.url}/items`)).status);
        expect(statuses).toEqual([200, 200, 200, 429, 429]);
      } finally {
        redis.signal('SIGCONT');
        await app.close();
      }
    },
  );
});
