import { describe, expect, it } from 'vitest';
import { CircuitBreaker, type BreakerChange } from '../../src/resilience/breaker';
import { BreakerSet } from '../../src/resilience/breakers';

function setup(settings = { failureThreshold: 3, failureWindow: 1000, cooldown: 5000, probeInterval: 1000 }) {
  const clock = { now: 0 };
  const changes: string[] = [];
  const onChange = (change: BreakerChange) => changes.push(`${change.from}->${change.to}@${change.at}`);
  const breaker = new CircuitBreaker(settings, () => clock.now, onChange);
  const failTimes = (n: number) => {
    for (let i = 0; i < n; i++) breaker.fail(breaker.acquire()!);
  };
  return { clock, changes, breaker, failTimes };
}

describe('CircuitBreaker', () => {
  it('opens after failureThreshold consecutive failures, refuses during cooldown, then lets one probe through', () => {
    const { clock, changes, breaker, failTimes } = setup();
    failTimes(2);
    expect(breaker.state).toBe('closed');
    failTimes(1);
    expect(breaker.state).toBe('open');
    expect(breaker.acquire()).toBeUndefined();
    clock.now = 4999;
    expect(breaker.acquire()).toBeUndefined();
    expect(breaker.retryIn()).toBe(1);
    clock.now = 5000;
    const probe = breaker.acquire();
    expect(probe).toBeDefined();
    expect(breaker.state).toBe('half-open');
    expect(breaker.acquire()).toBeUndefined();
    breaker.succeed(probe!);
    expect(breaker.state).toBe('closed');
    expect(changes).toEqual(['closed->open@0', 'open->half-open@5000', 'half-open->closed@5000']);
  });

  it('a failed probe opens it again for probeInterval, not a whole cooldown (issue 9, item 10)', () => {
    // The store is back but its client is still reconnecting: the first probe fails, the next one a
    // second later finds it connected.
    const { clock, changes, breaker, failTimes } = setup();
    failTimes(3);
    clock.now = 5000;
    breaker.fail(breaker.acquire()!);
    expect(breaker.state).toBe('open');
    expect(breaker.retryIn()).toBe(1000);
    clock.now = 5999;
    expect(breaker.acquire()).toBeUndefined();
    clock.now = 6000;
    breaker.fail(breaker.acquire()!);
    clock.now = 7000;
    const probe = breaker.acquire();
    expect(probe).toBeDefined();
    breaker.succeed(probe!);
    expect(changes).toEqual([
      'closed->open@0',
      'open->half-open@5000',
      'half-open->open@5000',
      'open->half-open@6000',
      'half-open->open@6000',
      'open->half-open@7000',
      'half-open->closed@7000',
    ]);
    // Failures that open a closed breaker again cost the whole cooldown.
    failTimes(3);
    expect(breaker.retryIn()).toBe(5000);
  });

  it('never waits longer after a failed probe than a cooldown', () => {
    const { clock, breaker, failTimes } = setup({
      failureThreshold: 1,
      failureWindow: 1000,
      cooldown: 300,
      probeInterval: 1000,
    });
    failTimes(1);
    clock.now = 300;
    breaker.fail(breaker.acquire()!);
    expect(breaker.retryIn()).toBe(300);
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
    clock.now = 5000;
    const probe = breaker.acquire()!;
    breaker.fail(early);
    expect(breaker.state).toBe('half-open');
    breaker.succeed(probe);
    expect(breaker.state).toBe('closed');
  });
});

describe('BreakerSet', () => {
  const settings = { failureThreshold: 2, failureWindow: 1000, cooldown: 5000, probeInterval: 1000 };

  it('keeps one breaker per partition and names the partition in its changes', () => {
    let now = 0;
    const changes: BreakerChange[] = [];
    const set = new BreakerSet(
      settings,
      () => now,
      (change) => changes.push(change),
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
});
