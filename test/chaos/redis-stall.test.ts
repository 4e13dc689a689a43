import { describe, expect, it } from 'vitest';
import { ready } from '../resilience/support.ts';
import type { ChaosApp } from './support/app.ts';
import {
  at,
  boundFor,
  expectAnswered,
  expectBounded,
  afterMachineStall,
  expectDegradedOnlyWithin,
  warmUp,
  watch,
} from './support/checks.ts';
import { COOLDOWN, TIMEOUT, useChaosParts } from './support/fixture.ts';
import { runLoad } from './support/load.ts';
import { record, summarize } from './support/report.ts';

const chaos = useChaosParts();

/** Scenario 4's deadline, ms. */
const FLUSH_TIMEOUT = 1000;

async function setup(prefix: string, timeout = TIMEOUT) {
  const { server, app } = await chaos.redisApp({ prefix, limit: 40, timeout }, { commandTimeout: 5000 });
  const admin = chaos.client(server.port, { commandTimeout: 5000 });
  await ready(admin);
  return { server, admin, app };
}

const breakerPath = (app: ChaosApp) => app.breakerChanges.map((change) => change.to).join(' → ') || 'closed throughout';

describe('chaos: Redis stalled', () => {
  it('2. frozen (SIGSTOP, SIGCONT after 3 s): the deadline, not the client, bounds the wait', async () => {
    const { server, app } = await setup('chaos-freeze');
    await warmUp(app);
    const watching = watch();
    const load = runLoad({ url: app.url, rate: 200, durationMs: 7000 });
    await at(1000);
    const frozenAt = performance.now();
    server.signal('SIGSTOP');
    await at(3000);
    server.signal('SIGCONT');
    const thawedAt = performance.now();
    const samples = await load;
    const { rejections, loopDelay } = watching.stop();

    const redisAgain = app.decisions.find((d) => d.at > thawedAt && !d.degraded);
    const recovered = Math.round((redisAgain?.at ?? Number.NaN) - thawedAt);
    const timeouts = app.storeErrors.filter(
      (e) => (e.error as { code?: string }).code === 'ERR_FLOODGATE_STORE_TIMEOUT',
    );
    const notes = `${timeouts.length} store timeouts; Redis-backed again ${recovered} ms after SIGCONT; breaker: ${breakerPath(app)}`;
    record(summarize('2. Redis SIGSTOP for 3 s', samples, app.decisions, notes, loopDelay));

    expect(rejections).toEqual([]);
    expectAnswered(samples, app);
    expectBounded(app, boundFor(TIMEOUT));
    expectDegradedOnlyWithin(app, frozenAt, thawedAt + COOLDOWN + 1000);
    expect(recovered).toBeLessThanOrEqual(COOLDOWN + 1000);
  });

  it('3. DEBUG SLEEP 0.5 and CLIENT PAUSE 2000 during load: bounded latency, no 5xx', async () => {
    const { admin, app } = await setup('chaos-pause');
    await warmUp(app);
    const watching = watch();
    const load = runLoad({ url: app.url, rate: 200, durationMs: 8000 });
    await at(1000);
    const sleptAt = performance.now();
    await admin.call('DEBUG', 'SLEEP', '0.5');
    await at(1000);
    const pausedAt = performance.now();
    await admin.call('CLIENT', 'PAUSE', 2000, 'ALL');
    const samples = await load;
    const { rejections, loopDelay } = watching.stop();

    const notes = `${app.storeErrors.length} store errors; breaker: ${breakerPath(app)}`;
    record(summarize('3. DEBUG SLEEP 0.5, then CLIENT PAUSE 2000', samples, app.decisions, notes, loopDelay));

    expect(rejections).toEqual([]);
    expectAnswered(samples, app);
    expectBounded(app, boundFor(TIMEOUT));
    expectDegradedOnlyWithin(app, sleptAt, pausedAt + 2000 + COOLDOWN + 1000);
    const afterAll = app.decisions.filter((d) => d.at > pausedAt + 2000 + COOLDOWN + 1000);
    expect(afterAll.length).toBeGreaterThan(0);
    expect(afterAll.filter((d) => d.degraded && !afterMachineStall(d.at))).toEqual([]);
  });

  it('4. SCRIPT FLUSH every 200 ms during load: zero errors, zero degraded decisions', async () => {
    // The subject is NOSCRIPT, not the deadline: a deadline a busy machine cannot miss (reloading the
    // script after each flush took over 100 ms at load 10), so any error or fallback is NOSCRIPT's.
    const { admin, app } = await setup('chaos-flush', FLUSH_TIMEOUT);
    await warmUp(app);
    const watching = watch();
    const load = runLoad({ url: app.url, rate: 200, durationMs: 5000 });
    let flushes = 0;
    const started = performance.now();
    while (performance.now() - started < 4800) {
      await admin.call('SCRIPT', 'FLUSH');
      flushes++;
      await at(200);
    }
    const samples = await load;
    const { rejections, loopDelay } = watching.stop();
    record(
      summarize(
        '4. SCRIPT FLUSH every 200 ms',
        samples,
        app.decisions,
        `${flushes} flushes, ${app.storeErrors.length} store errors`,
        loopDelay,
      ),
    );

    expect(rejections).toEqual([]);
    expectAnswered(samples, app);
    expectBounded(app, boundFor(FLUSH_TIMEOUT));
    expect(app.storeErrors.map((e) => String(e.error))).toEqual([]);
    expect(app.decisions.filter((d) => d.degraded)).toEqual([]);
  });
});
