import { type Duration, parseDuration } from '@floodgate/core';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../helpers/redis-server.ts';
import { typeCheck } from './support/compile.ts';
import { CODE_LANGS, type CodeBlock, codeBlocks, readmePaths } from './support/readmes.ts';
import { runSnippet } from './support/run.ts';
import { userApp } from './support/user-app.ts';

// The short snippets run: every block that compiles on its own, with no names from a context, is
// run with Node in the user app, against a private redis-server (REDIS_URL). One that starts a
// server is sent GET / until its first 429: its limit must hold exactly, and a Redis-backed one
// must have written its counts to Redis.

/** Blocks that are complete but cannot run here, and why. */
const NOT_RUN = [
  { readme: 'packages/client/README.md', contains: 'api.github.com', why: 'calls a public API' },
  { readme: 'packages/redis/README.md', contains: '@valkey/valkey-glide', why: 'connects to a named host' },
  { readme: 'packages/redis/README.md', contains: 'new Redis.Cluster(nodes', why: 'ioredis defaults to port 6379' },
];

const app = userApp();
const code = readmePaths().flatMap((readme) => codeBlocks(readme).filter((block) => CODE_LANGS.includes(block.lang)));
const complete = [...typeCheck(app.dir, code, { folder: 'complete' })]
  .filter(([, errors]) => errors.length === 0)
  .map(([block]) => block);
const runnable = complete.filter(
  (block) => !NOT_RUN.some((skip) => skip.readme === block.readme && block.code.includes(skip.contains)),
);

let redis: RedisServer;
let admin: Redis;
beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url, { lazyConnect: true });
  await admin.connect();
}, 60_000);
afterAll(async () => {
  admin?.disconnect();
  await redis?.stop();
});
beforeEach(async () => {
  await admin.flushall();
});

/** The first `limit: N` of a block: the limit its server must enforce. */
const limitOf = (block: CodeBlock) => Number(/\blimit: (\d+)/.exec(block.code)?.[1]);

/**
 * Every `window: '...'` of a block, in ms. The snippets count on the real clock (Redis' TIME for a
 * RedisStore) in windows aligned to the epoch: the harness waits, when needed, until none of them
 * ends during its probe, where a new window would let more than the limit through.
 */
const windowsOf = (block: CodeBlock) =>
  [...block.code.matchAll(/\bwindow: '([^']+)'/g)].map((match) => parseDuration(match[1] as Duration)).join(',');

describe('README snippets that are complete', () => {
  it('include the quick starts and the Redis setup of the root README', () => {
    const root = runnable.filter((block) => block.readme === 'README.md');
    expect(root.length).toBeGreaterThanOrEqual(4);
  });

  it.each(runnable.map((block) => [`${block.readme}:${block.line}`, block] as const))('%s runs', async (_, block) => {
    const result = await runSnippet(app.dir, block, { REDIS_URL: redis.url, PROBE_WINDOWS: windowsOf(block) });
    expect(result.stderr.split('\n').filter((line) => /Error|at /.test(line))).toEqual([]);
    expect(result.code).toBe(0);
    if (result.probe === undefined) return;
    const { statuses, denied } = result.probe;
    expect(statuses.filter((status) => status === 200)).toHaveLength(limitOf(block));
    expect(statuses.at(-1)).toBe(429);
    expect(denied?.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(denied?.body ?? '{}')['violated-policies']).toEqual(['ip']);
    if (block.code.includes('RedisStore')) expect(await admin.keys('fg:ip:*')).toHaveLength(1);
  });
});
