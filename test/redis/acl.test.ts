import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byIp, concurrency, createLimiter, fixedWindow, slidingLog } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { startRedis, type RedisServer } from '../helpers/redis-server.ts';
import { contextOf } from '../helpers/context.ts';
import { frameworks, withApps } from '../adapters/support/controls-apps.ts';
import { call, statuses } from '../adapters/support/controls-routes.ts';
import { connectClient } from './fixtures/client.ts';
import { CLIENT_FAMILIES, connectFamily, type FamilyClient } from './fixtures/families.ts';
import { granted, readmeAclLines, refusalsOf, setUser } from './fixtures/acl.ts';
import type { Algorithm, FloodgateWarning, LimitRule, StoreErrorEvent } from '@floodgate/core';
import type { Redis } from 'ioredis';

/**
 * Issue 20: a least-privilege ACL user. The README's ACL SETUSER lines, run as written, are all the
 * store, its controls and the status route need, with every client; and a user missing any one of
 * those permissions gets an error naming it, once, and never an admission past the limit.
 * A private server (never REDIS_URL): the file creates ACL users and flushes the script cache.
 */
let server: RedisServer;
let admin: Redis;
const clients: FamilyClient[] = [];
beforeAll(async () => {
  server = await startRedis();
  admin = await connectClient(server.url);
});
afterAll(async () => {
  for (const client of clients) await client.close();
  admin?.disconnect();
  await server?.stop();
});

const { evalLine, functionLine } = readmeAclLines();
/** What RedisStore itself sends; `info` is the clients' (see the README). */
const FLOODGATE_COMMANDS = granted(evalLine).filter((command) => command !== 'info');

async function loginAs(name: string, family: FamilyClient['family'] = 'ioredis'): Promise<FamilyClient> {
  const client = await connectFamily(family, server.url, { username: name, commandTimeout: 2000 });
  clients.push(client);
  return client;
}

// The store decides on Redis' TIME here (the README's user must be allowed it), which no test can
// freeze: the fixed windows are an hour long, so that none starts again between counted requests.
const HTTP_LIMITS: LimitRule[] = [
  {
    name: 'ip',
    key: byIp(),
    algorithm: fixedWindow({ limit: 3, window: '1h' }),
    blockDuration: '1m',
    escalate: { period: '1h', max: '1h' },
  },
  { name: 'log', key: byIp(), algorithm: slidingLog({ limit: 3, window: '1m' }) },
  { name: 'slots', key: byIp(), algorithm: concurrency({ max: 3 }) },
];

describe("the README's ACL user is all RedisStore needs (issue 20)", () => {
  it.each(
    CLIENT_FAMILIES.flatMap((family) => (['eval', 'function'] as const).map((scripts) => [family, scripts] as const)),
  )(
    '%s, scripts %s: store, penalties, refund, peek, block, unblock, reset and the status route; nothing refused',
    async (family, scripts) => {
      const user = `floodgate-${family}-${scripts}`;
      await setUser(admin, user, scripts === 'eval' ? evalLine : functionLine);
      await admin.call('SCRIPT', 'FLUSH');
      await admin.call('FUNCTION', 'FLUSH');
      // Every run is 127.0.0.1 under the README's `fg` prefix: start from an empty private server.
      await admin.call('FLUSHALL');
      const { client } = await loginAs(user, family);
      const storeErrors: StoreErrorEvent[] = [];
      const warnings: FloodgateWarning[] = [];
      const store = new RedisStore({ client, scripts, onWarning: (w) => warnings.push(w) });
      // A generous deadline: what is asserted is what Redis refused, not how fast a busy machine answers.
      const options = {
        store,
        limits: HTTP_LIMITS,
        denyCache: false,
        timeout: 2000,
        onStoreError: (e: StoreErrorEvent) => storeErrors.push(e),
      };
      await withApps([(frameworks[0] as (typeof frameworks)[0]).start(options)], async (app) => {
        expect(await statuses(app.url, 4)).toEqual([200, 200, 200, 429]); // the 4th earns a penalty
        expect((await call(app.url, '/control/peek')).json).toMatchObject({ allowed: false });
        expect((await call(app.url, '/control/unblock')).status).toBe(200);
        await app.controls.limiter.refund(contextOf({ ip: '127.0.0.1' }), { cost: 1 });
        expect(await statuses(app.url, 2)).toEqual([200, 429]);
        expect((await call(app.url, '/control/block?ms=60000')).status).toBe(200);
        expect((await call(app.url, '/control/reset')).status).toBe(200);
        expect(await statuses(app.url, 1)).toEqual([200]);
        const status = await call(app.url, '/rate_limit');
        expect(status.status).toBe(200);
        expect(status.json.resources.ip).toMatchObject({ limit: 3, remaining: 2, used: 1 });
      });
      expect(storeErrors.map((e) => String(e.error))).toEqual([]);
      expect(warnings.map((w) => w.code).filter((code) => code !== 'WARN_FLOODGATE_EVICTION_POLICY')).toEqual([]);
      // CONFIG GET (the optional eviction check) is the only command the user was refused.
      expect((await refusalsOf(admin, user)).filter((refusal) => refusal !== 'command:config|get')).toEqual([]);
    },
  );
});

const GROUPS: [string, Algorithm, Partial<LimitRule>][] = [
  [
    'fixedWindow with a penalty',
    fixedWindow({ limit: 3, window: '1h' }),
    { blockDuration: '1m', escalate: { period: '1h', max: '1h' } },
  ],
  ['slidingLog', slidingLog({ limit: 3, window: '1m' }), {}],
  ['concurrency', concurrency({ max: 3 }), {}],
];

/**
 * Every operation on one rule as the user `name`, failMode 'closed' and a breaker that never opens
 * (so each operation reaches Redis): what was admitted, what failed and with which message.
 */
async function everything(client: FamilyClient['client'], rule: (typeof GROUPS)[number]) {
  const failures: string[] = [];
  const warnings: FloodgateWarning[] = [];
  const limiter = createLimiter({
    store: new RedisStore({ client, onWarning: (w) => warnings.push(w) }),
    failMode: 'closed',
    denyCache: false,
    breaker: { failureThreshold: 1_000_000 },
    timeout: 2000,
    onStoreError: (event) => failures.push(String(event.error)),
    limits: [{ name: 'r', key: byIp(), algorithm: rule[1], ...rule[2] }],
  });
  const ip = `198.51.100.${Math.floor(Math.random() * 250)}`;
  const ctx = contextOf({ ip });
  const control = (op: Promise<unknown>) => op.catch((error: unknown) => failures.push(String(error)));
  // A refund gives back what its request was charged: one request charged, then refunded, first.
  const refunded = contextOf({ ip });
  await limiter.consume(refunded);
  await limiter.refund(refunded, { cost: 1 });
  const burst = [];
  for (let i = 0; i < 5; i++) burst.push(await limiter.consume(ctx));
  await limiter.peek(ctx);
  await control(limiter.unblock(ctx));
  await limiter.consume(ctx);
  await control(limiter.reset(ctx));
  // On a fresh key, so that only the block can deny the next request.
  const before = failures.length;
  await control(limiter.block(ctx, '1m'));
  const blockLanded = failures.length === before;
  const whileBlocked = await limiter.consume(ctx);
  await control(limiter.unblock(ctx));
  await limiter.consume(ctx);
  await limiter.close?.();
  return { burst, whileBlocked, blockLanded, failures, warnings };
}

describe('a user missing one permission (issue 20)', () => {
  it.each(FLOODGATE_COMMANDS)(
    'without +%s: an error naming it, one warning, never an admission past the limit',
    async (command) => {
      const user = `floodgate-without-${command}`;
      await setUser(admin, user, evalLine, [command]);
      await admin.call('SCRIPT', 'FLUSH');
      const { client } = await loginAs(user);
      const named: string[] = [];
      for (const group of GROUPS) {
        const run = await everything(client, group);
        // Within the limit of 3: whatever failed was denied ('closed'), never admitted.
        expect(run.burst.filter((d) => d.allowed).length, group[0]).toBeLessThanOrEqual(3);
        expect(
          run.burst.every((d) => !d.allowed || !d.degraded),
          group[0],
        ).toBe(true);
        // A block that landed holds: no admission while it stands.
        if (run.blockLanded) expect(run.whileBlocked.allowed, group[0]).toBe(false);
        named.push(...run.failures, ...run.warnings.map((w) => `${w.code} ${w.message}`));
        const acl = run.warnings.filter((w) => w.code === 'WARN_FLOODGATE_ACL');
        expect(acl.length, group[0]).toBeLessThanOrEqual(1);
        if (command !== 'time') for (const failure of run.failures) expect(failure, group[0]).toMatch(/may not/);
      }
      if (command === 'time') {
        // The script cannot read the server's clock: RedisStore sends the app's own, and says why.
        expect(named.some((text) => /WARN_FLOODGATE_SERVER_TIME .*\+time/.test(text))).toBe(true);
      } else {
        expect(
          named.some((text) => new RegExp(`\\b${command}\\b`).test(text)),
          named.join('\n'),
        ).toBe(true);
        expect(named.some((text) => text.startsWith('WARN_FLOODGATE_ACL') && text.includes(command))).toBe(true);
      }
    },
  );

  it('with a key pattern that misses the prefix: an error naming the key, never an admission', async () => {
    await setUser(
      admin,
      'floodgate-other-keys',
      evalLine.map((word) => (word.startsWith('~') ? '~other:*' : word)),
    );
    const { client } = await loginAs('floodgate-other-keys');
    const run = await everything(client, GROUPS[0] as (typeof GROUPS)[number]);
    expect(run.burst.filter((d) => d.allowed)).toEqual([]);
    expect(run.whileBlocked.allowed).toBe(false);
    expect(run.failures[0]).toMatch(/may not use the key fg:r:\S+\{198\.51\.100\.\d+\}.*~<prefix>\*/);
    expect(run.warnings.map((w) => w.code)).toEqual(['WARN_FLOODGATE_ACL']);
  });

  it('without +hmget, failMode local: 3 of 8 admitted at a limit of 3, all decided locally (was 8 of 8)', async () => {
    await setUser(admin, 'floodgate-no-hmget', evalLine, ['hmget']);
    const { client } = await loginAs('floodgate-no-hmget');
    const failures: string[] = [];
    const warnings: FloodgateWarning[] = [];
    const limiter = createLimiter({
      store: new RedisStore({ client, onWarning: (w) => warnings.push(w) }),
      // The local fallback decides on this clock: frozen, its minute never ends between the 8.
      clock: () => Date.UTC(2026, 0, 1),
      timeout: 2000,
      onStoreError: (event) => failures.push(String(event.error)),
      limits: [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 3, window: '1m' }) }],
    });
    const decisions = [];
    for (let i = 0; i < 8; i++) decisions.push(await limiter.consume(contextOf({ ip: '203.0.113.80' })));
    expect(decisions.filter((d) => d.allowed).length).toBe(3);
    expect(decisions.every((d) => d.degraded)).toBe(true);
    expect(failures[0]).toMatch(/may not run hmget/);
    expect(warnings.map((w) => w.code)).toEqual(['WARN_FLOODGATE_ACL']);
  });
});
