import { expect } from 'vitest';
import type { ChaosApp, DecisionRecord } from '../chaos/support/app.ts';
import type { Sample } from '../chaos/support/load.ts';

/** One Sentinel failover under load, as failover.test.ts ran it. */
export interface Run {
  app: ChaosApp;
  samples: Sample[];
  rejections: unknown[];
  /** performance.now() of the fault, of the replica's promotion, and of the sentinels naming it. */
  faultAt: number;
  promotedAt: number;
  switchedAt: number;
  oldMaster: number;
  newMaster: number;
  /** The last degraded decision, ms after the switch (0 when none came after it). */
  recovered: number;
  /** performance.now() of each `+switch-master` announced during the run: one, unless the machine stalled. */
  switches: number[];
}

/**
 * How long before the sentinels name a new master it may have been promoted: up to about a second
 * for a quiet machine (see the reports), more on a loaded one.
 */
const NAMING = 3000;

/**
 * The decisions of `lost` that no failover explains: outside [from, to] of the run's own fault, and
 * outside any later failover the sentinels made by themselves (a stall longer than their 1 s
 * down-after on a loaded machine: the master they left took writes until the client followed, as
 * in SENTINEL FAILOVER).
 */
export function lostOutside(run: Run, lost: readonly DecisionRecord[], from: number, to: number): DecisionRecord[] {
  const later = run.switches.filter((at) => at > run.switchedAt + 100);
  return lost.filter((d) => (d.at < from || d.at > to) && !later.some((at) => d.at >= at - NAMING && d.at <= at + 500));
}

/**
 * No 5xx and one decision per request. A request the load driver gave up on after 2 s (status 0)
 * is tolerated up to 2% of the load: with the load average above 20 while this was written, the
 * driver or the app's event loop sometimes waited that long for a CPU; the limiter's own time is
 * what expectBounded asserts.
 */
export function expectAnswered(run: Run): void {
  const statuses = run.samples.map((sample) => sample.status);
  expect(statuses.filter((status) => status !== 200 && status !== 0)).toEqual([]);
  expect(statuses.filter((status) => status === 0).length).toBeLessThanOrEqual(run.samples.length / 50);
  const decided = run.app.decisions.map((decision) => decision.id);
  expect(new Set(decided).size, 'one decision per request').toBe(decided.length);
  const answered = run.samples.filter((sample) => sample.status === 200).map((sample) => sample.id);
  expect(answered.filter((id) => !decided.includes(id))).toEqual([]);
}

/**
 * Degraded decisions only from the fault to `until` (none at all is fine: node-redis may follow a
 * graceful switch without a failed call), and Redis-backed at the end.
 */
export function expectDegradedWithin(run: Run, until: number): void {
  const outside = run.app.decisions.filter((d) => d.degraded && (d.at < run.faultAt || d.at > until));
  expect(
    outside.map((d) => Math.round(d.at - run.switchedAt)),
    'degraded decisions outside the failover (ms after the switch)',
  ).toEqual([]);
  expect(run.app.decisions.at(-1)?.degraded).toBe(false);
}

export function report(name: string, run: Run, lostAt: readonly DecisionRecord[], ghost: number): void {
  const degraded = run.app.decisions.filter((d) => d.degraded).length;
  const lost = lostAt.length;
  const span =
    lost === 0
      ? ''
      : ` (decided ${Math.round((lostAt[0]?.at ?? 0) - run.faultAt)} to ${Math.round((lostAt.at(-1)?.at ?? 0) - run.faultAt)} ms after the fault)`;
  console.log(
    `${name}: replica promoted ${Math.round(run.promotedAt - run.faultAt)} ms and named ` +
      `${Math.round(run.switchedAt - run.faultAt)} ms after the fault, last degraded decision ` +
      `${Math.round(run.recovered)} ms after the switch; ${run.app.decisions.length} decisions, ${degraded} degraded, ` +
      `${lost} charges lost${span}, ${ghost} ghost charges, ${run.switches.length} switch(es) announced, ` +
      `${run.app.storeErrors.length} store errors: ` +
      errorsByMessage(run),
  );
}

/** Each distinct store error once, with how many there were and when (ms after the switch). */
function errorsByMessage(run: Run): string {
  const seen = new Map<string, number[]>();
  for (const e of run.app.storeErrors) {
    const message = String(e.error).slice(0, 70);
    seen.set(message, [...(seen.get(message) ?? []), Math.round(e.at - run.switchedAt)]);
  }
  return [...seen]
    .map(([message, at]) => `${at.length} x ${message} (${Math.min(...at)} to ${Math.max(...at)} ms)`)
    .join('; ');
}
