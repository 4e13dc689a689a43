import { createLimiter, fixedWindow, type KeyContext } from '@floodgate/core';
import { encodeIdentity } from '../../packages/core/src/keys/identity.ts';
import calculateSlot from 'cluster-key-slot';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../helpers/redis-server.ts';
import { limiterKey } from '../redis/fixtures/client.ts';
import { NASTY_IDENTITIES, identityArbitrary } from './identities.ts';
import { contextOf } from '../helpers/context.ts';

// CLUSTER KEYSLOT needs cluster mode, not a working cluster: one cluster-enabled node answers it.
let server: RedisServer;
let admin: Redis;
beforeAll(async () => {
  server = await startRedis({ args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'] });
  admin = new Redis({ port: server.port, host: server.host, lazyConnect: true, maxRetriesPerRequest: 0 });
  await admin.connect();
});
afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
});

const RULES = ['ip', 'user', 'api.key'];
const algorithm = fixedWindow({ limit: 10, window: '1m' });

let lastKeys: string[] = [];
// One limiter for every run (a MemoryStore allocates its LRU up front); the identity rides on req.
const limiter = createLimiter<string>({
  prefix: 'fg',
  limits: RULES.map((name) => ({ name, key: (ctx: KeyContext<string>) => ctx.req, algorithm })),
  onDecision: (event) => {
    lastKeys = event.keys;
  },
});

/** The keys createLimiter builds for one identity under three rules (read from onDecision). */
async function limiterKeys(identity: string): Promise<string[]> {
  lastKeys = [];
  await limiter.consume(contextOf({ req: identity }));
  return lastKeys;
}

async function serverSlots(keys: readonly string[]): Promise<number[]> {
  const pipeline = admin.pipeline();
  for (const key of keys) pipeline.call('CLUSTER', 'KEYSLOT', key);
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([error, slot]) => {
    if (error) throw error;
    return Number(slot);
  });
}

/** The single `{...}` of a key: present, non-empty, brace-free, and the only braces in the key. */
function hashTagOf(key: string): string {
  const match = /^[^{}]*\{([^{}]+)\}[^{}]*$/.exec(key);
  if (match === null) throw new Error(`key ${JSON.stringify(key.slice(0, 80))} has no single clean hash tag`);
  return match[1] as string;
}

describe('hash tags built from any identity', () => {
  it('put every key of one identity on one slot, and ioredis agrees with the server', async () => {
    await fc.assert(
      fc.asyncProperty(identityArbitrary, async (identity) => {
        const keys = await limiterKeys(identity);
        expect(keys).toHaveLength(RULES.length);
        const encoded = await encodeIdentity(identity);
        expect(keys).toEqual(RULES.map((rule) => limiterKey('fg', rule, algorithm, encoded)));
        // Bounded, and raw input reaches a key only when it is short and plain (catalogue B22).
        expect(encoded === identity || /^~[A-Za-z0-9_-]{43}$/.test(encoded)).toBe(true);
        expect(encoded).toMatch(/^[A-Za-z0-9._:~-]{1,64}$/);
        expect(new Set(keys.map(hashTagOf))).toEqual(new Set([encoded]));
        // RedisStore prepends its own brace-free prefix; that must not move the slot either.
        const all = [...keys, ...keys.map((key) => `app:${key}`)];
        const clientSlots = all.map((key) => calculateSlot(key));
        expect(new Set(clientSlots).size).toBe(1);
        expect(await serverSlots(all)).toEqual(clientSlots);
      }),
      { numRuns: 300, examples: NASTY_IDENTITIES.map((identity) => [identity]) },
    );
  });

  it('never let two distinct identities share an encoding', async () => {
    await fc.assert(
      fc.asyncProperty(identityArbitrary, identityArbitrary, async (a, b) => {
        fc.pre(a !== b);
        expect(await encodeIdentity(a)).not.toBe(await encodeIdentity(b));
      }),
      { numRuns: 500 },
    );
    // Lone surrogates would all become U+FFFD in UTF-8 (reliability.md M22): each must stay apart.
    const encodings = await Promise.all(NASTY_IDENTITIES.map((identity) => encodeIdentity(identity)));
    expect(new Set(encodings).size).toBe(NASTY_IDENTITIES.length);
  });

  it('fails the same property for raw identities in the braces (the check has teeth)', async () => {
    const raw = fc.asyncProperty(fc.constantFrom(...NASTY_IDENTITIES), async (identity) => {
      const keys = RULES.map((rule) => `fg:${rule}:{${identity}}`);
      const clientSlots = keys.map((key) => calculateSlot(key));
      return new Set(clientSlots).size === 1 && (await serverSlots(keys)).every((slot, i) => slot === clientSlots[i]);
    });
    const result = await fc.check(raw, { numRuns: 100 });
    expect(result.failed).toBe(true);
  });
});
