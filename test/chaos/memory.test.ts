import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { freePort } from '../helpers/ports.ts';
import { ctxFor, tunedClient } from '../resilience/support.ts';
import { record, type ScenarioSummary } from './support/report.ts';
import type { Redis } from 'ioredis';

let client: Redis | undefined;
afterAll(() => client?.disconnect());

/** ioredis keeps its offline queue private; its length is what reliability.md M20 measured. */
const queued = (client: Redis) => (client as unknown as { offlineQueue: { length: number } }).offlineQueue.length;

const gc = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('chaos: memory during a long outage', () => {
  it('10. 100,000 requests from 100,000 IPs with Redis down: heap bounded by the fallback LRU, not by the request count', async () => {
    client = tunedClient(await freePort());
    const limiter = createLimiter({
      store: new RedisStore({ client }),
      prefix: 'chaos-memory',
      limits: [{ name: 'ip', key: (ctx) => ctx.ip, algorithm: fixedWindow({ limit: 100, window: 60_000 }) }],
    });
    const ip = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
    const run = async (from: number, to: number) => {
      let degraded = 0;
      for (let start = from; start < to; start += 200) {
        const batch = [];
        for (let n = start; n < Math.min(to, start + 200); n++) batch.push(limiter.consume(ctxFor(ip(n))));
        for (const decision of await Promise.all(batch)) if (decision.degraded) degraded++;
      }
      return degraded;
    };
    const started = performance.now();
    const baseline = heapAfterGc();
    // The fallback holds at most 10,000 keys: the first 20,000 IPs fill it (and everything else warms up).
    let degraded = await run(0, 20_000);
    const filled = heapAfterGc();
    degraded += await run(20_000, 100_000);
    const after = heapAfterGc();
    const seconds = (performance.now() - started) / 1000;
    const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    const summary: ScenarioSummary = {
      scenario: '10. 100,000 IPs during an outage (limiter calls, no HTTP)',
      sent: 100_000,
      statuses: { degraded },
      p50: 0,
      p99: 0,
      max: 0,
      decisionP99: 0,
      decisionMax: 0,
      overBound: 0,
      loopDelayMax: 0,
      degradedShare: degraded / 100_000,
      notes: `heap +${mb(filled - baseline)} MB after the first 20,000 IPs (LRU full), then +${mb(after - filled)} MB for the next 80,000; offline queue ${queued(client)}; ${seconds.toFixed(1)} s`,
    };
    record(summary);

    expect(degraded).toBe(100_000);
    expect(queued(client)).toBe(0);
    // 10,000 fixed-window entries need a few MB; 80,000 more IPs must not add to that.
    expect(filled - baseline).toBeLessThan(20 * 2 ** 20);
    expect(after - filled).toBeLessThan(3 * 2 ** 20);
  });
});
