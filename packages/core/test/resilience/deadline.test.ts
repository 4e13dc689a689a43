import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreTimeoutError } from '@floodgate/core';
import { Deadlines, withDeadline } from '@floodgate/core/store';

describe('withDeadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('rejects with StoreTimeoutError when the promise has not settled at the deadline', async () => {
    vi.useFakeTimers();
    const result = withDeadline(new Promise<never>(() => {}), 100).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(99);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersByTimeAsync(1);
    const error = await result;
    expect(error).toBeInstanceOf(StoreTimeoutError);
    expect(error).toMatchObject({ code: 'ERR_FLOODGATE_STORE_TIMEOUT' });
  });

  it('takes an answer that became ready in the same turn the deadline fired (a stalled loop is not a slow store)', async () => {
    vi.useFakeTimers();
    let resolve: (value: string) => void = () => {};
    const answer = new Promise<string>((r) => {
      resolve = r;
    });
    const result = withDeadline(answer, 100);
    setTimeout(() => resolve('reply'), 100);
    await vi.advanceTimersByTimeAsync(101);
    await expect(result).resolves.toBe('reply');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('settles with the promise and leaves no timer behind', async () => {
    vi.useFakeTimers();
    await expect(withDeadline(Promise.resolve(7), 100)).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('boom')), 100)).rejects.toThrow('boom');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('swallows a rejection that arrives after the deadline (vitest fails the run on an unhandled rejection)', async () => {
    vi.useFakeTimers();
    let reject: (error: Error) => void = () => {};
    const late = new Promise<never>((_, r) => {
      reject = r;
    });
    const outcome = withDeadline(late, 10).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(11);
    expect(await outcome).toBeInstanceOf(StoreTimeoutError);
    reject(new Error('too late'));
    await Promise.resolve();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('Deadlines', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const never = () => new Promise<never>(() => {});

  it('gives the calls that begin in one turn one timer, and rejects each at the deadline', async () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines(100);
    const results = [deadlines.watch(never()), deadlines.watch(never()), deadlines.watch(never())].map((watched) =>
      watched.catch((error: unknown) => error),
    );
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(99);
    await vi.advanceTimersByTimeAsync(2);
    for (const error of await Promise.all(results)) {
      expect(error).toBeInstanceOf(StoreTimeoutError);
    }
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives calls of a later turn a timer of their own, counted from when they began', async () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines(100);
    let first: unknown;
    let second: unknown;
    deadlines.watch(never()).catch((error: unknown) => {
      first = error;
    });
    await vi.advanceTimersByTimeAsync(50);
    deadlines.watch(never()).catch((error: unknown) => {
      second = error;
    });
    expect(vi.getTimerCount()).toBe(2);
    await vi.advanceTimersByTimeAsync(52);
    expect(first).toBeInstanceOf(StoreTimeoutError);
    expect(second).toBeUndefined();
    await vi.advanceTimersByTimeAsync(50);
    expect(second).toBeInstanceOf(StoreTimeoutError);
  });

  it('settles each call with its own answer, and clears the timer once all have', async () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines(100);
    let resolveLast: (value: string) => void = () => {};
    const last = new Promise<string>((resolve) => {
      resolveLast = resolve;
    });
    const answers = [
      deadlines.watch(Promise.resolve('a')),
      deadlines.watch(Promise.reject(new Error('b'))).catch((error: Error) => error.message),
      deadlines.watch(last),
    ];
    await vi.advanceTimersByTimeAsync(10);
    expect(vi.getTimerCount()).toBe(1);
    resolveLast('c');
    expect(await Promise.all(answers)).toEqual(['a', 'b', 'c']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('takes an answer that became ready in the turn the deadline fired, and times out the rest', async () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines(100);
    let resolve: (value: string) => void = () => {};
    const answer = new Promise<string>((r) => {
      resolve = r;
    });
    const ready = deadlines.watch(answer);
    const late = deadlines.watch(never()).catch((error: unknown) => error);
    setTimeout(() => resolve('reply'), 100);
    await vi.advanceTimersByTimeAsync(101);
    await expect(ready).resolves.toBe('reply');
    expect(await late).toBeInstanceOf(StoreTimeoutError);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('swallows a rejection that arrives after the deadline', async () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines(10);
    let reject: (error: Error) => void = () => {};
    const late = new Promise<never>((_, r) => {
      reject = r;
    });
    const outcome = deadlines.watch(late).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(11);
    expect(await outcome).toBeInstanceOf(StoreTimeoutError);
    reject(new Error('too late'));
    await Promise.resolve();
    expect(vi.getTimerCount()).toBe(0);
  });
});
