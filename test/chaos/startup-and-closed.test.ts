import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.ts';
import { at, boundFor, expectAnswered, expectBounded, warmUp, watch } from './support/checks.ts';
import { TIMEOUT, useChaosParts } from './support/fixture.ts';
import { runLoad } from './support/load.ts';
import { record, summarize } from './support/report.ts';

const chaos = useChaosParts();

describe('chaos: no Redis at start, and failMode closed', () => {
  it('5. Redis unreachable at start-up: the app starts, serves, and limits locally', async () => {
    const client = chaos.client(await freePort());
    const limit = 10;
    const windowMs = 60_000;
    const app = await chaos.app(client, { prefix: 'chaos-start', limit, windowMs });
    const watching = watch();
    const startedAt = Date.now();
    const samples = await runLoad({ url: app.url, rate: 200, durationMs: 3000 });
    const windows = Math.floor(Date.now() / windowMs) - Math.floor(startedAt / windowMs) + 1;
    const { rejections, loopDelay } = watching.stop();
    const denied = samples.filter((s) => s.status === 429).length;
    const notes = `${app.storeErrors.length} store errors; breaker: ${app.breakerChanges.map((c) => c.to).join(' → ')}`;
    record(summarize('5. Redis unreachable at start-up', samples, app.decisions, notes, loopDelay));

    expect(rejections).toEqual([]);
    expectAnswered(samples, app);
    expectBounded(app, boundFor(TIMEOUT));
    expect(app.decisions.every((d) => d.degraded)).toBe(true);
    expect(denied).toBeGreaterThan(0);
    expect(samples.length - denied).toBeLessThanOrEqual(20 * limit * windows);
    expect(app.breakerChanges[0]?.to).toBe('open');
  });

  it("7. failMode 'closed': every request during the outage gets 503 with Retry-After; none hangs", async () => {
    const { server, app } = await chaos.redisApp({ prefix: 'chaos-closed', failMode: 'closed' });
    await warmUp(app);
    const watching = watch();
    const load = runLoad({ url: app.url, rate: 200, durationMs: 5000 });
    await at(1000);
    await server.kill();
    await at(2000);
    await server.start();
    const samples = await load;
    const { rejections, loopDelay } = watching.stop();
    const byId = new Map(app.decisions.map((d) => [d.id, d]));
    const refused = samples.filter((s) => byId.get(s.id)?.unavailable);
    const notes = `${refused.length} refused with 503 during the outage`;
    record(summarize("7. failMode 'closed', Redis killed for 2 s", samples, app.decisions, notes, loopDelay));

    expect(rejections).toEqual([]);
    expectAnswered(samples, app, [200, 429, 503]);
    expectBounded(app, boundFor(TIMEOUT));
    expect(refused.length).toBeGreaterThan(0);
    for (const sample of samples) {
      const decision = byId.get(sample.id);
      if (decision?.degraded) {
        expect(sample.status).toBe(503);
        expect(Number(sample.retryAfter)).toBeGreaterThanOrEqual(1);
      } else {
        expect(sample.status).not.toBe(503);
      }
    }
  });
});
