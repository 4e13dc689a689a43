import { describe, expect, it } from 'vitest';
import { CircuitBreaker, type BreakerChange } from '../../src/resilience/breaker';

function setup(settings = { failureThreshold: 3, failureWindow: 1000, cooldown: 5000 }) {
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

  it('a failed probe opens it again for a full cooldown', () => {
    const { clock, changes, breaker, failTimes } = setup();
    failTimes(3);
    clock.now = 5000;
    breaker.fail(breaker.acquire()!);
    expect(breaker.state).toBe('open');
    clock.now = 9999;
    expect(breaker.acquire()).toBeUndefined();
    clock.now = 10_000;
    expect(breaker.acquire()).toBeDefined();
    expect(changes).toEqual(['closed->open@0', 'open->half-open@5000', 'half-open->open@5000', 'open->half-open@10000']);
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
