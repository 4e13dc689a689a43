import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker } from './bundle.ts';
import { burst, fetchFrom, startWorkers } from './miniflare.ts';
import type { Miniflare } from 'miniflare';
import type { WorkerBundle } from './bundle.ts';

const ip = (address: string) => ({ 'cf-connecting-ip': address });

describe('@floodgate/hono in workerd, MemoryStore', () => {
  let bundle: WorkerBundle;
  let mf: Miniflare;

  beforeAll(async () => {
    bundle = await bundleWorker('hono-memory');
    // Two Workers running the same script: two isolates, two MemoryStores.
    mf = startWorkers(bundle, [{ name: 'one' }, { name: 'two' }]);
    await mf.ready;
  });
  afterAll(() => mf?.dispose());

  it('admits the limit, then answers 429 with Retry-After, RateLimit headers and problem+json', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const response = await fetchFrom(mf, 'one', '/limited/a', { headers: ip('198.51.100.1') });
      statuses.push(response.status);
      if (i === 0) {
        expect(response.headers.get('ratelimit-policy')).toBe('"ip";q=5;w=3600');
        expect(await response.json()).toMatchObject({ allowed: true, limit: 5, remaining: 4, degraded: false });
      } else if (response.status === 429) {
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(3500);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(await response.json()).toMatchObject({ status: 429, 'violated-policies': ['ip'] });
      } else {
        await response.arrayBuffer();
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });

  it('keys by CF-Connecting-IP through getConnInfo: another address has its own count', async () => {
    const response = await fetchFrom(mf, 'one', '/limited/b', { headers: ip('198.51.100.2') });
    expect(await response.json()).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('counts per isolate: each of two Workers admits the whole limit (MemoryStore is not shared)', async () => {
    const responses = await burst(mf, ['one', 'two'], '/limited/c', 20, ip('198.51.100.3'));
    const admitted = responses.filter((response) => response.status === 200).length;
    await Promise.all(responses.map((response) => response.arrayBuffer()));
    expect(admitted).toBe(10);
  });

  it('gives the unit back after a failed response (skipFailedRequests), on the Fetch API path', async () => {
    for (let i = 0; i < 8; i++) {
      const failed = await fetchFrom(mf, 'one', '/refunding/fail', { headers: ip('198.51.100.4') });
      expect(failed.status).toBe(500);
      await failed.arrayBuffer();
    }
    // The refund runs after the response is built; the next request, in order, sees it.
    const ok = await fetchFrom(mf, 'one', '/refunding/ok', { headers: ip('198.51.100.4') });
    expect(await ok.json()).toMatchObject({ allowed: true, remaining: 4 });
  });
});

/**
 * nodejs_compat gives workerd a setImmediate. The Hono middleware batches the decisions of one
 * event-loop turn only on @hono/node-server: in workerd a request whose promise is settled from
 * another request's turn is cancelled as hung, so there it must decide each request at once.
 */
describe.each([
  ['MemoryStore', 'hono-memory', '/limited/compat', 5, undefined],
  ['DurableObjectStore', 'hono-durable', '/limited/compat', 10, 'FloodgateObject'],
] as const)('@floodgate/hono in workerd with nodejs_compat, %s', (_, worker, path, limit, objectClass) => {
  let mf: Miniflare;
  beforeAll(async () => {
    const config = { limit, timeout: 10_000 };
    mf = startWorkers(await bundleWorker(worker), [
      { name: 'compat', flags: ['nodejs_compat'], config, ...(objectClass === undefined ? {} : { objectClass }) },
    ]);
    await mf.ready;
  });
  afterAll(() => mf?.dispose());

  it('answers every one of 30 concurrent requests: the limit admitted, the rest refused, none cancelled', async () => {
    const responses = await burst(mf, ['compat'], path, 30, ip('198.51.100.30'));
    const bodies = await Promise.all(responses.map((response) => response.text()));
    const statuses = responses.map((response) => response.status);
    expect(
      statuses.filter((status) => status !== 200 && status !== 429),
      bodies.join('\n').slice(0, 500),
    ).toEqual([]);
    expect(statuses.filter((status) => status === 200).length).toBe(limit);
  });
});

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

describe('the edge bundle', () => {
  it('of @floodgate/core + @floodgate/hono has no node: import, and its size is reported', async () => {
    const whole = await bundleWorker('hono-memory');
    const floodgate = await bundleWorker('hono-memory', { external: ['hono', 'hono/*'] });
    expect(whole.imports).toEqual([]);
    expect(floodgate.imports.filter((path) => !path.startsWith('hono'))).toEqual([]);
    console.info(
      `edge bundle, minified / gzipped: Worker with Hono ${kb(whole.minified)} / ${kb(whole.gzipped)}; ` +
        `@floodgate/core + @floodgate/hono alone ${kb(floodgate.minified)} / ${kb(floodgate.gzipped)}`,
    );
    // A budget, not a measurement: well above today's size, far below Workers' 3 MiB (free plan) limit.
    expect(floodgate.gzipped).toBeLessThan(64 * 1024);
  });

  it('of @floodgate/cloudflare (store and Durable Object) has no node: import, and its size is reported', async () => {
    const whole = await bundleWorker('hono-durable');
    const floodgate = await bundleWorker('hono-durable', { external: ['hono', 'hono/*'] });
    expect(whole.imports).toEqual([]);
    expect(floodgate.imports.filter((path) => !path.startsWith('hono'))).toEqual([]);
    console.info(
      `edge bundle, minified / gzipped: Worker with Hono and a Durable Object ${kb(whole.minified)} / ${kb(whole.gzipped)}; ` +
        `@floodgate/core + @floodgate/hono + @floodgate/cloudflare alone ${kb(floodgate.minified)} / ${kb(floodgate.gzipped)}`,
    );
    expect(floodgate.gzipped).toBeLessThan(64 * 1024);
  });
});
