import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/** Hands a teardown to the suite; teardowns run after the file's tests, the last handed first. */
export type Defer = (teardown: () => unknown) => void;

/** A Node server an example listens with (node:http, or what @hono/node-server's serve returns). */
export interface NodeServer extends NodeJS.EventEmitter {
  readonly listening: boolean;
  address(): AddressInfo | string | null;
  close(callback?: (error?: Error) => void): unknown;
}

/** What an example suite reads once its beforeAll has run. */
export interface ExampleSuite {
  /** The running app's base URL, without a trailing slash: `http://127.0.0.1:<port>`. */
  readonly base: string;
}

/**
 * Registers the beforeAll/afterAll of an example's suite: `start` brings the app up (with whatever
 * it needs, handing each teardown to `defer`) and returns its base URL; after the file's tests the
 * teardowns run, the last handed first, including those of a `start` that failed part-way.
 *
 * @example const suite = useExampleServer((defer) => listening(createApp().listen(0, '127.0.0.1'), defer));
 */
export function useExampleServer(start: (defer: Defer) => Promise<string>, timeout?: number): ExampleSuite {
  const teardowns: (() => unknown)[] = [];
  let base: string | undefined;
  beforeAll(async () => {
    base = await start((teardown) => teardowns.push(teardown));
  }, timeout);
  afterAll(async () => {
    for (const teardown of teardowns.splice(0).reverse()) await teardown();
  });
  return {
    get base() {
      if (base === undefined) throw new Error('useExampleServer: read the suite inside a test, after beforeAll');
      return base;
    },
  };
}

/** Waits for `server` to listen on loopback, defers its close, and returns its base URL. */
export async function listening(server: NodeServer, defer: Defer): Promise<string> {
  defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
  if (!server.listening) await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
