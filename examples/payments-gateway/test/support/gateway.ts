import type { AddressInfo } from 'node:net';
import { MemoryStore } from '@floodgate/fastify';
import { afterEach } from 'vitest';
import { buildApp } from '../../src/app.js';

type BuildOptions = Parameters<typeof buildApp>[0];

/** A running gateway: its base URL, and the Fastify app (for `app.floodgate` and `close`). */
export interface Gateway {
  readonly base: string;
  readonly app: Awaited<ReturnType<typeof buildApp>>;
}

/** A frozen clock: nothing refills during a test, so every count is exact. */
export const frozen = () => 1_700_000_000_001;

/**
 * Registers an afterEach that closes every gateway the test started (the last started first), and
 * returns the function that starts one on a free loopback port. Without a store, it gets a fresh
 * MemoryStore on the frozen clock.
 */
export function useGateways(): (options?: Partial<BuildOptions>) => Promise<Gateway> {
  const teardowns: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const teardown of teardowns.splice(0).reverse()) await teardown();
  });
  return async (options = {}) => {
    const app = await buildApp({ clock: frozen, store: new MemoryStore({ clock: frozen }), ...options });
    teardowns.push(() => app.close());
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, app };
  };
}
