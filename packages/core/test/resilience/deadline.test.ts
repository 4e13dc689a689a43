import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreTimeoutError } from '@floodgate/core';
import { withDeadline } from '@floodgate/core/store';

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
