import { describe, expect, it } from 'vitest';
import { fixedWindow } from '@floodgate/core';
import { DurableObjectStore } from '../src/index';
import type { LimiterNamespace } from '../src/index';

/**
 * What DurableObjectStore refuses in the Worker, before any object is called: this namespace fails
 * every call with a StoreError-shaped message, so an answer that names the argument came first.
 */
const unreachable: LimiterNamespace = {
  idFromName: (name) => name,
  get: () => ({
    fetch: async () => {
      throw new Error('an object was called');
    },
  }),
};

const calls = [{ key: 'fg:ip:fw:{203.0.113.7}', algorithm: fixedWindow({ limit: 5, window: '1m' }), cost: 1 }];

describe('DurableObjectStore checks in the Worker', () => {
  it.each([0, -1, 1.5, Number.NaN, 2 ** 31, '1m'])(
    'refuses to block for %s ms, with a stable code',
    async (duration) => {
      const store = new DurableObjectStore({ namespace: unreachable });
      const blocking = store.block(calls, duration as number);
      await expect(blocking).rejects.toThrow(
        /DurableObjectStore.block: duration must be whole ms from 1 to 2147483647/,
      );
      await expect(store.block(calls, duration as number)).rejects.toMatchObject({
        code: 'ERR_FLOODGATE_INVALID_OPTION',
      });
    },
  );

  it('takes a clock function only', () => {
    expect(() => new DurableObjectStore({ namespace: unreachable, clock: 5 as never })).toThrow(
      /DurableObjectStore.clock must be a function, got 5/,
    );
  });

  it.each([Number.NaN, -1, 1.5, undefined])('refuses a clock reading of %s on every operation', async (reading) => {
    const store = new DurableObjectStore({ namespace: unreachable, clock: () => reading as number });
    const operations = [
      () => store.consume(calls, 'r'),
      () => store.peek(calls, 'r'),
      () => store.refund(calls, 'r'),
      () => store.reset(calls),
      () => store.block(calls, 1000),
      () => store.unblock(calls),
    ];
    for (const operation of operations) {
      await expect(operation()).rejects.toThrow(/DurableObjectStore.clock must return integer epoch ms >= 0/);
    }
  });

  it('does reach the objects once the arguments are good (so the refusals above came first)', async () => {
    const store = new DurableObjectStore({ namespace: unreachable, clock: () => 1_700_000_000_000 });
    await expect(store.block(calls, 60_000)).rejects.toMatchObject({
      code: 'ERR_FLOODGATE_STORE',
      message: expect.stringMatching(/Durable Object block failed: an object was called/),
    });
  });
});
