import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/packages.ts';
import { readReadme, section } from './support/readmes.ts';

// One recommended ioredis setup: the root README shows it, and @floodgate/redis' README and every
// example's store copy it line for line, from `new Redis(redisUrl, …)` to the awaited connect().

/** The setup's lines in `text`, dedented; undefined when it is not there. */
function setupIn(text: string): string | undefined {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.includes('const client = new Redis(redisUrl, {'));
  const end = lines.findIndex((line, i) => i > start && line.includes('await client.connect()'));
  if (start === -1 || end === -1) return undefined;
  const block = lines.slice(start, end + 1);
  const indent = (/^\s*/.exec(block[0] as string)?.[0] ?? '').length;
  return block.map((line) => line.slice(indent)).join('\n');
}

const canonical = setupIn(section('README.md', 'Redis: one limit for every instance'));

/** Option names of an ioredis options object literal, in order. */
const optionNames = (text: string) => [...text.matchAll(/^\s*(\w+): [^{]/gm)].map(([, name]) => name);

describe('the recommended Redis client setup', () => {
  it('is in the root README, with the six settings, lazyConnect and an error listener', () => {
    expect(canonical).toBeDefined();
    expect(optionNames(canonical ?? '')).toEqual([
      'enableOfflineQueue',
      'maxRetriesPerRequest',
      'commandTimeout',
      'connectTimeout',
      'reconnectOnError',
      'retryStrategy',
      'lazyConnect',
    ]);
    expect(canonical).toContain("client.on('error'");
  });

  it("is the Cluster's too: the offline queue off, the other four settings under redisOptions", () => {
    // Not retryStrategy: a Cluster's node connections do not reconnect on their own (the Cluster
    // refreshes its slots and connects again), so the setting means nothing there.
    const readme = readReadme('packages/redis/README.md');
    const cluster = readme.slice(readme.indexOf('new Redis.Cluster('));
    const underRedisOptions = [...(/redisOptions: \{([^}]*)\}/.exec(cluster)?.[1] ?? '').matchAll(/(\w+):/g)];
    const others = optionNames(canonical ?? '').filter(
      (name) => name !== 'enableOfflineQueue' && name !== 'lazyConnect' && name !== 'retryStrategy',
    );
    expect(cluster).toMatch(/^\s*enableOfflineQueue: false,/m);
    expect(underRedisOptions.map(([, name]) => name).sort()).toEqual(others.sort());
  });

  it.each([
    'packages/redis/README.md',
    'examples/express/src/store.js',
    'examples/fastify/src/store.js',
    'examples/hono/src/store.js',
    'examples/koa/src/store.js',
    'examples/nestjs/src/store.js',
    'examples/playground/src/store.js',
  ])('is copied exactly in %s', (path) => {
    expect(setupIn(readFileSync(join(ROOT, path), 'utf8'))).toBe(canonical);
  });
});
