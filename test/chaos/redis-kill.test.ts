import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { adminCommand, ready } from '../resilience/support.ts';
import {
  at,
  boundFor,
  expectAnswered,
  expectBounded,
  expectDegradedOnlyWithin,
  warmUp,
  watch,
} from './support/checks.ts';
import { COOLDOWN, TIMEOUT, useChaosParts } from './support/fixture.ts';
import { runLoad } from './support/load.ts';
import { record, summarize } from './support/report.ts';

const chaos = useChaosParts();
const setup = (prefix: string) => chaos.redisApp({ prefix, limit: 40 });

describe('chaos: Redis killed', () => {
  it('1. SIGKILL mid-load, restarted 3 s later: no 5xx, bounded latency, degraded only while down, Redis-backed within cooldown + 1 s', async () => {
    const { server, app } = await setup('chaos-kill');
    await warmUp(app);
    const watching = watch();
    const load = runLoad({ url: app.url, rate: 200, durationMs: 7000 });
    await at(1000);
    const killedAt = performance.now();
    await server.kill();
    await at(3000);
    await server.start();
    const backAt = performance.now();
    const samples = await load;
    const { rejections, loopDelay } = watching.stop();

    const redisAgain = app.decisions.find((d) => d.at > backAt && !d.degraded);
    const recovered = Math.round((redisAgain?.at ?? Number.NaN) - backAt);
    const path = app.breakerChanges.map((c) => c.to).join(' → ');
    const notes = `Redis-backed again ${recovered} ms after restart; breaker: ${path}`;
    record(summarize('1. Redis SIGKILL, restart after 3 s', samples, app.decisions, notes, loopDelay));

    expect(rejections).toEqual([]);
    expectAnswered(samples, app);
    expectBounded(app, boundFor(TIMEOUT));
    expectDegradedOnlyWithin(app, killedAt, backAt + COOLDOWN + 1000);
    expect(recovered).toBeLessThanOrEqual(COOLDOWN + 1000);
  });

  it('6. restarted every 500 ms for 5 s: no 5xx, no unhandled rejection, no listener or memory growth', async () => {
    const { server, client, app } = await setup('chaos-reset');
    const gc = exposeGc();
    const listeners = (emitter: NodeJS.EventEmitter) =>
      emitter.eventNames().reduce((sum, name) => sum + emitter.listenerCount(name), 0);
    await runLoad({ url: app.url, rate: 200, durationMs: 500 });
    app.decisions.length = 0;
    gc();
    const before = { heap: process.memoryUsage().heapUsed, client: listeners(client), process: listeners(process) };
    const watching = watch();
    const load = runLoad({ url: app.url, rate: 200, durationMs: 6000 });
    let restarts = 0;
    const loopStarted = performance.now();
    while (performance.now() - loopStarted < 5000) {
      await server.kill();
      await server.start();
      restarts++;
      await at(500);
    }
    const samples = await load;
    const { rejections, loopDelay } = watching.stop();
    gc();
    const after = { heap: process.memoryUsage().heapUsed, client: listeners(client), process: listeners(process) };
    const growth = after.heap - before.heap;
    const notes = `${restarts} restarts; heap ${(growth / 2 ** 20).toFixed(1)} MB after forced GC; listeners on client ${before.client} → ${after.client}, on process ${before.process} → ${after.process}`;
    record(summarize('6. Redis restarted every 500 ms for 5 s', samples, app.decisions, notes, loopDelay));

    expect(rejections).toEqual([]);
    expectAnswered(samples, app);
    expectBounded(app, boundFor(TIMEOUT));
    expect(after.client).toBe(before.client);
    expect(after.process).toBe(before.process);
    expect(growth).toBeLessThan(10 * 2 ** 20);
  });

  it('8. no ghost charges: requests decided by the fallback leave nothing in Redis after it returns', async () => {
    const { server, client, app } = await setup('chaos-ghost');
    await runLoad({ url: app.url, rate: 100, durationMs: 300, clients: ['warm-up'] });
    await server.kill();
    app.decisions.length = 0;
    const watching = watch();
    const during = await runLoad({ url: app.url, rate: 200, durationMs: 1000, uniquePrefix: 'ghost' });
    const { rejections, loopDelay } = watching.stop();
    await server.start();
    await ready(client);
    // A command parked while Redis was down would be sent on reconnect, ahead of this PING on the
    // same connection: once it answers, anything queued has run.
    await client.ping();
    const keys = (await adminCommand(server.port, 'KEYS', '*ghost*')) as string[];
    const notes = `Redis keys for those clients after it returned: ${keys.length}`;
    record(summarize('8. ghost charges (Redis down, 200 distinct clients)', during, app.decisions, notes, loopDelay));

    expect(rejections).toEqual([]);
    expectAnswered(during, app);
    expect(app.decisions.every((d) => d.degraded)).toBe(true);
    expect(keys).toEqual([]);
  });
});

/** global.gc without --expose-gc: the flag can be set at run time and read from a fresh context. */
function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
