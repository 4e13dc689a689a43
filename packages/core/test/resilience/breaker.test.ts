import { describe, expect, it } from 'vitest';
import { CircuitBreaker, type BreakerChange, type BreakerSignals } from '../../src/resilience/breaker';
import { BreakerSet } from '../../src/resilience/breakers';

const SETTINGS = { failureThreshold: 3, failureWindow: 1000, cooldown: 5000, probeInterval: 1000 };

/** A breaker on an injected clock; `random` 0 (no jitter) unless given, and a settable ready count. */
function setup(settings = SETTINGS, signals: Partial<BreakerSignals> = {}) {
  const clock = { now: 0 };
  const store = { ready: 0 };
  const changes: string[] = [];
  const onChange = (change: BreakerChange) => changes.push(`${change.from}->${change.to}@${change.at}`);
  const breaker = new CircuitBreaker(settings, () => clock.now, onChange, {
    random: () => 0,
    readyCount: () => store.ready,
    ...signals,
  });
  const failTimes = (n: number) => {
    for (let i = 0; i < n; i++) breaker.fail(breaker.acquire()!);
  };
  /** Fails the probe that is due now; returns how long the breaker then stays open. */
  const failProbe = () => {
    const probe = breaker.acquire();
    expect(probe?.probe, `a probe at ${clock.now}`).toBe(true);
    breaker.fail(probe!);
    return breaker.retryIn();
  };
  return { clock, store, changes, breaker, failTimes, failProbe };
}

describe('CircuitBreaker', () => {
  it('opens after failureThreshold consecutive failures, refuses for probeInterval, then lets one probe through', () => {
    const { clock, changes, breaker, failTimes } = setup();
    failTimes(2);
    expect(breaker.state).toBe('closed');
    failTimes(1);
    expect(breaker.state).toBe('open');
    expect(breaker.acquire()).toBeUndefined();
    clock.now = 999;
    expect(breaker.acquire()).toBeUndefined();
    expect(breaker.retryIn()).toBe(1);
    clock.now = 1000;
    const probe = breaker.acquire();
    expect(probe).toBeDefined();
    expect(breaker.state).toBe('half-open');
    expect(breaker.acquire()).toBeUndefined();
    breaker.succeed(probe!);
    expect(breaker.state).toBe('closed');
    expect(changes).toEqual(['closed->open@0', 'open->half-open@1000', 'half-open->closed@1000']);
  });

  it('doubles the wait after each failed probe, up to the cooldown (issue 19, item 14)', () => {
    // Before: a whole cooldown first (30 s with the defaults), so a 10 s outage cost 20 s more of local decisions.
    const { clock, breaker, failTimes, failProbe } = setup({ ...SETTINGS, cooldown: 30_000 });
    failTimes(3);
    const waits = [breaker.retryIn()];
    for (let i = 0; i < 7; i++) {
      clock.now += waits[waits.length - 1] as number;
      waits.push(failProbe());
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('draws each wait between half and all of it, so instances that lost the store together probe apart', () => {
    const draws = [0, 0.5, 0.999_999];
    const waits = draws.map((r) => {
      const { breaker, failTimes } = setup(SETTINGS, { random: () => r });
      failTimes(3);
      return breaker.retryIn();
    });
    expect(waits).toEqual([1000, 750, 501]);
    // Each wait of a schedule has its own draw.
    let calls = 0;
    const { clock, breaker, failTimes, failProbe } = setup(SETTINGS, { random: () => (calls++ % 2 === 0 ? 0 : 0.5) });
    failTimes(3);
    expect(breaker.retryIn()).toBe(1000);
    clock.now = 1000;
    expect(failProbe()).toBe(1500);
  });

  it('probes at once when the store reports a new ready connection, whatever is left of the wait (issue 19, item 14)', () => {
    const { clock, store, changes, breaker, failTimes, failProbe } = setup({ ...SETTINGS, cooldown: 30_000 });
    failTimes(3);
    for (const wait of [1000, 2000, 4000]) {
      clock.now += wait;
      failProbe();
    }
    expect(breaker.retryIn()).toBe(8000);
    clock.now += 100;
    expect(breaker.acquire()).toBeUndefined();
    // The client reconnected: the next call is the probe, 7.9 s early.
    store.ready += 1;
    const probe = breaker.acquire();
    expect(probe?.probe).toBe(true);
    breaker.succeed(probe!);
    expect(breaker.state).toBe('closed');
    expect(changes.slice(-2)).toEqual(['open->half-open@7100', 'half-open->closed@7100']);
  });

  it('a probe that fails after a reconnect waits its back-off again, until the next reconnect', () => {
    const { clock, store, breaker, failTimes } = setup();
    failTimes(3);
    store.ready += 1;
    breaker.fail(breaker.acquire()!);
    expect(breaker.retryIn()).toBe(2000);
    clock.now += 10;
    expect(breaker.acquire()).toBeUndefined();
    store.ready += 1;
    expect(breaker.acquire()?.probe).toBe(true);
  });

  it('a reconnect while the failing call was under way still ends the wait', () => {
    const { store, breaker, failTimes } = setup();
    failTimes(2);
    const last = breaker.acquire()!;
    store.ready += 1;
    breaker.fail(last);
    expect(breaker.state).toBe('open');
    expect(breaker.acquire()?.probe).toBe(true);
  });

  it('a probe sent before a reconnect and failed after it leaves the next call to probe at once', () => {
    const { clock, store, breaker, failTimes } = setup();
    failTimes(3);
    clock.now = 1000;
    const probe = breaker.acquire()!;
    store.ready += 1;
    breaker.fail(probe);
    expect(breaker.retryIn()).toBe(2000);
    expect(breaker.acquire()?.probe).toBe(true);
  });

  it('without a ready count (a store that keeps none, or a getter that throws) waits out the back-off', () => {
    for (const readyCount of [
      undefined,
      () => undefined,
      () => 'x',
      () => {
        throw new Error('no');
      },
    ]) {
      const { clock, breaker, failTimes } = setup(SETTINGS, { readyCount });
      failTimes(3);
      clock.now = 999;
      expect(breaker.acquire()).toBeUndefined();
      clock.now = 1000;
      expect(breaker.acquire()?.probe).toBe(true);
    }
  });

  it('opening again soon after closing (a flapping store) resumes the back-off; after a failure window closed it starts over', () => {
    const { clock, breaker, failTimes, failProbe } = setup({ ...SETTINGS, cooldown: 30_000 });
    failTimes(3);
    clock.now += 1000;
    failProbe();
    clock.now += 2000;
    breaker.succeed(breaker.acquire()!);
    // Failing again 500 ms later: 4 s, not 1 s.
    clock.now += 500;
    failTimes(3);
    expect(breaker.retryIn()).toBe(4000);
    clock.now += 4000;
    breaker.succeed(breaker.acquire()!);
    // Well for longer than the failure window: 1 s again.
    clock.now += 1001;
    failTimes(3);
    expect(breaker.retryIn()).toBe(1000);
  });

  it('never waits longer than a cooldown, even when probeInterval is longer', () => {
    const { clock, breaker, failTimes, failProbe } = setup({
      failureThreshold: 1,
      failureWindow: 1000,
      cooldown: 300,
      probeInterval: 1000,
    });
    failTimes(1);
    expect(breaker.retryIn()).toBe(300);
    clock.now = 300;
    expect(failProbe()).toBe(300);
  });

  it('needs the failures to be consecutive: a success in between starts the count again', () => {
    const { breaker, failTimes } = setup();
    failTimes(2);
    breaker.succeed(breaker.acquire()!);
    failTimes(2);
    expect(breaker.state).toBe('closed');
    failTimes(1);
    expect(breaker.state).toBe('open');
  });

  it('needs the failures within failureWindow', () => {
    const { clock, breaker, failTimes } = setup();
    failTimes(2);
    clock.now = 1001;
    failTimes(1);
    expect(breaker.state).toBe('closed');
    clock.now = 1500;
    failTimes(1);
    expect(breaker.state).toBe('closed');
    clock.now = 2001;
    failTimes(1);
    expect(breaker.state).toBe('open');
  });

  it('ignores the result of a call granted before the state changed', () => {
    const { clock, breaker, failTimes } = setup();
    const early = breaker.acquire()!;
    failTimes(3);
    breaker.succeed(early);
    expect(breaker.state).toBe('open');
    clock.now = 1000;
    const probe = breaker.acquire()!;
    breaker.fail(early);
    expect(breaker.state).toBe('half-open');
    breaker.succeed(probe);
    expect(breaker.state).toBe('closed');
  });
});

describe('BreakerSet', () => {
  const settings = { failureThreshold: 2, failureWindow: 1000, cooldown: 5000, probeInterval: 5000 };
  const signals = { random: () => 0 };

  it('keeps one breaker per partition and names the partition in its changes', () => {
    let now = 0;
    const changes: BreakerChange[] = [];
    const set = new BreakerSet(
      settings,
      () => now,
      (change) => changes.push(change),
      signals,
    );
    for (let i = 0; i < 2; i++) set.fail(set.acquire(['shard-a'])!);
    expect(set.acquire(['shard-a'])).toBeUndefined();
    expect(set.acquire(['shard-b'])).toBeDefined();
    expect(set.acquire(['shard-a', 'shard-b'])).toBeUndefined();
    expect(changes).toEqual([{ from: 'closed', to: 'open', at: 0, partition: 'shard-a' }]);
    expect(set.retryIn(['shard-a', 'shard-b'])).toBe(5000);
    now = 5000;
    expect(set.acquire(['shard-a'], false)).toBeUndefined();
  });

  it('gives back a probe it could not use, so the next call can still probe', () => {
    let now = 0;
    const set = new BreakerSet(
      settings,
      () => now,
      () => {},
      signals,
    );
    for (let i = 0; i < 2; i++) set.fail(set.acquire(['a'])!);
    now = 3000;
    for (let i = 0; i < 2; i++) set.fail(set.acquire(['b'])!);
    now = 5000;
    expect(set.acquire(['a', 'b'])).toBeUndefined();
    const probe = set.acquire(['a']);
    expect(probe?.[0]?.ticket.probe).toBe(true);
    expect(set.acquire(['a'])).toBeUndefined();
  });

  it('lets every open partition probe once the store reports a reconnect', () => {
    let now = 0;
    let ready = 0;
    const set = new BreakerSet(
      settings,
      () => now,
      () => {},
      { ...signals, readyCount: () => ready },
    );
    for (const shard of ['a', 'b']) for (let i = 0; i < 2; i++) set.fail(set.acquire([shard])!);
    now = 10;
    expect(set.acquire(['a'])).toBeUndefined();
    ready = 1;
    expect(set.acquire(['a'])?.[0]?.ticket.probe).toBe(true);
    expect(set.acquire(['b'])?.[0]?.ticket.probe).toBe(true);
  });
});
