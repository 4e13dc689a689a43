import { concurrency, fixedWindow, gcra, leakyBucket, slidingLog, slidingWindow, tokenBucket } from '@floodgate/hono';
import type { Algorithm } from '@floodgate/hono';
import type { Context } from 'hono';
import type { LayerCall, Penalty } from '@floodgate/core/store';
// By path: test/tsconfig.json (shared, not ours to change) maps no @floodgate/cloudflare.
import type { DurableObjectStore } from '../../../packages/cloudflare/src/index.ts';

const FACTORIES: Record<string, (options: never) => Algorithm> = {
  fixedWindow,
  slidingLog,
  slidingWindow,
  tokenBucket,
  leakyBucket,
  gcra,
  concurrency,
};

/** One layer as a test sends it: the algorithm as its factory's name and options. */
export interface SentCall {
  key: string;
  kind: string;
  options: object;
  cost: number;
  shadow?: boolean;
  critical?: boolean;
  penalty?: Penalty;
}

/** One store operation, decided at `now` when it is given (the store's `clock`), else by the objects' clocks. */
export interface StoreCall {
  op: 'consume' | 'refund' | 'peek' | 'reset' | 'block' | 'unblock';
  id?: string;
  now?: number;
  duration?: number;
  calls: SentCall[];
}

/**
 * `POST /store`: runs one StoreCall on a DurableObjectStore made by `storeOf` (with a clock reading
 * `now` when the call has one) and answers `{ outcomes }` (none for the operations that return
 * nothing), or `{ error: { name, message, code } }` with a 500.
 */
export function storeRoute(storeOf: (c: Context, clock: (() => number) | undefined) => DurableObjectStore) {
  return async (c: Context): Promise<Response> => {
    const body = (await c.req.json()) as StoreCall;
    try {
      const now = body.now;
      const store = storeOf(c, now === undefined ? undefined : () => now);
      const calls: LayerCall[] = body.calls.map(({ kind, options, ...call }) => ({
        ...call,
        algorithm: (FACTORIES[kind] as (options: object) => Algorithm)(options),
      }));
      const id = body.id ?? '';
      switch (body.op) {
        case 'consume':
          return c.json({ outcomes: await store.consume(calls, id) });
        case 'peek':
          return c.json({ outcomes: await store.peek(calls, id) });
        case 'refund':
          await store.refund(calls, id);
          return c.json({});
        case 'block':
          await store.block(calls, body.duration as number);
          return c.json({});
        default:
          await store[body.op](calls);
          return c.json({});
      }
    } catch (error) {
      const { name, message, code } = error as { name: string; message: string; code?: string };
      return c.json({ error: { name, message, code } }, 500);
    }
  };
}
