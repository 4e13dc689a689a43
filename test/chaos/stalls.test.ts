import { describe, expect, it } from 'vitest';
import { stalledDuring, watch } from './support/checks.ts';

/**
 * The chaos bounds take the event loop's own stalls off each decision's latency (a busy CI host
 * must not fail them). These pin what that subtracts: a blocked loop, not a wait.
 */
describe('loop stalls taken off a decision', () => {
  it('counts a blocked event loop, and not an asynchronous wait (a limiter past its deadline still fails)', async () => {
    const watching = watch();
    const blockedFrom = performance.now();
    while (performance.now() - blockedFrom < 200) {
      // Held up, as by another process on a shared core or a long GC.
    }
    const blockedTo = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const waitingFrom = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const waitingTo = performance.now();
    watching.stop();
    expect(stalledDuring(blockedFrom, blockedTo)).toBeGreaterThan(150);
    // The wait is what a store without a deadline would cost: it must count against the bound. Not
    // all of it is free of stalls on a busy machine (77 ms of a 200 ms wait once, at load average
    // 18), but a recorder that took a wait for a stall would count nearly all of it.
    expect(stalledDuring(waitingFrom, waitingTo)).toBeLessThan(200 - 20);
  });
});
