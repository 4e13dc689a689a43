import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '@floodgate/express';
import { createPlayground } from '../src/app.js';
import { serve } from './serve.ts';

interface PlaygroundConfig {
  store: string;
  now: number;
  algorithms: { id: string; kind: string; route: string; options: Record<string, unknown> }[];
}

let site: Awaited<ReturnType<typeof serve>>;

beforeAll(async () => {
  site = await serve(createPlayground({ store: new MemoryStore() }));
});
afterAll(() => site.close());

describe('the page', () => {
  it('is served with its scripts and stylesheet, all local', async () => {
    const response = await fetch(`${site.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    const references = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(references.sort()).toEqual(['main.js', 'style.css']);
    for (const asset of ['main.js', 'style.css', 'timeline.js', 'traffic.js']) {
      const file = await fetch(`${site.url}/${asset}`);
      expect(file.status, asset).toBe(200);
      const text = await file.text();
      // Only relative imports and no remote URLs: the page must work without a network.
      expect(text, asset).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg|\$\{)/);
      for (const [, target] of text.matchAll(/\bfrom '([^']+)'/g)) expect(target, asset).toMatch(/^\.\/[\w-]+\.js$/);
    }
  });

  it('lists all eight algorithms in the configuration route', async () => {
    const config = (await (await fetch(`${site.url}/api/config`)).json()) as PlaygroundConfig;
    expect(config.store).toBe('memory');
    expect(typeof config.now).toBe('number');
    expect(config.algorithms.map((a) => a.id)).toEqual([
      'fixed-window',
      'sliding-log',
      'sliding-window',
      'token-bucket',
      'leaky-bucket-policing',
      'leaky-bucket-shaping',
      'gcra',
      'concurrency',
    ]);
    expect(config.algorithms.map((a) => a.kind)).toEqual([
      'fixedWindow',
      'slidingLog',
      'slidingWindow',
      'tokenBucket',
      'leakyBucket',
      'leakyBucket',
      'gcra',
      'concurrency',
    ]);
    expect(config.algorithms[5]).toMatchObject({ route: '/api/leaky-bucket-shaping', options: { mode: 'shaping' } });
  });

  it('lets loopback origins read the rate-limit headers, and no others', async () => {
    const local = await fetch(`${site.url}/api/gcra`, { headers: { origin: 'http://gcra.localhost:3000' } });
    expect(local.headers.get('access-control-allow-origin')).toBe('http://gcra.localhost:3000');
    expect(local.headers.get('access-control-expose-headers')).toContain('RateLimit-Policy');
    const foreign = await fetch(`${site.url}/api/gcra`, { headers: { origin: 'http://example.com' } });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});
