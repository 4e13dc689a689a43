import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '@floodgate/express';
import { floodgate } from '@floodgate/fastify';
import fastify5 from 'fastify';
import { byIp, fixedWindow, WarningCode } from '@floodgate/core';
import { limiterKey } from '../redis/fixtures/client.ts';
import { drivers, get } from './drivers.ts';
import { fixture, storeNames, until, useRedis, withApp } from './suite.ts';
import type { DecisionEvent, FloodgateWarning } from '@floodgate/core';
// The Express 4 and Fastify 4 aliases are dev dependencies of the adapter packages (as in drivers.ts).
import fastify4 from '../../packages/fastify/node_modules/fastify4/fastify.js';

// biome-ignore lint/suspicious/noExplicitAny: Express ships no types to the test package.
const express5: any = (await import('express' as string)).default;
// biome-ignore lint/suspicious/noExplicitAny: as above, for the Express 4 alias.
const express4: any = (await import('../../packages/express/node_modules/express4/index.js' as string)).default;

/**
 * Which address a request is counted under, through every framework and both stores:
 * catalogue E47 (e), the RFC 7239 `Forwarded` header is never read; catalogue E48, an IPv6 address
 * ending in a dotted quad stays IPv6 and is grouped by its /56; catalogue E47 (g), a request whose
 * socket closed before the limiter asked for its address is counted under byIp's fallback key.
 */

useRedis();

/** The proxy settings a request can meet: none, the test client's address trusted, and every hop trusted. */
const TRUST: { name: string; trustProxy: string[] | boolean | undefined }[] = [
  { name: 'no trusted proxy', trustProxy: undefined },
  { name: 'the loopback proxy trusted', trustProxy: ['127.0.0.1'] },
  { name: 'every proxy trusted (true)', trustProxy: true },
];

/** `Forwarded` values a client could send to pick its bucket; each names another address. */
const FORWARDED = [
  'for=198.51.100.1',
  'for=198.51.100.2',
  'for="[2001:db8:cafe::17]"',
  'for=203.0.113.43;proto=https;by=203.0.113.60',
  'for=192.0.2.60, for=198.51.100.3',
  'For="198.51.100.4:4711"',
];

const algorithm = fixedWindow({ limit: 1, window: '1m' });

/** byIp options on the test's store that record each decision's keys, and the key of an identity. */
function keyedByIp(storeName: string) {
  const f = fixture(storeName);
  const keys: string[][] = [];
  const options = {
    limits: [{ name: 'ip', key: byIp(), algorithm }],
    clock: f.clock,
    store: f.store,
    prefix: f.prefix,
    onDecision: (event: DecisionEvent) => keys.push(event.keys),
  };
  const keyOf = (identity: string) => [limiterKey(f.prefix, 'ip', algorithm, identity)];
  return { keys, options, keyOf };
}

describe.each(storeNames)('%s store', (storeName) => {
  describe.each(drivers)('$name', (driver) => {
    it.each(TRUST)(
      'a Forwarded header alone is never read ($name): the request is keyed by its real address (catalogue E47 e)',
      async ({ trustProxy }) => {
        const { keys, options: keyed, keyOf } = keyedByIp(storeName);
        const options = { ...keyed, onWarning: () => {} };
        await withApp(driver, { options, ...(trustProxy === undefined ? {} : { trustProxy }) }, async (app) => {
          const statuses: number[] = [];
          for (const forwarded of FORWARDED) statuses.push((await get(app.url, '/', { forwarded })).status);
          // Six Forwarded values, one bucket: only the first request fits in the limit of 1.
          expect(statuses).toEqual([200, 429, 429, 429, 429, 429]);
          // Without the header, the same client is in that same (spent) bucket.
          expect((await get(app.url)).status).toBe(429);
        });
        // Every request was counted under the address of its connection, the loopback client.
        expect(keys).toEqual(new Array(FORWARDED.length + 1).fill(keyOf('127.0.0.1')));
      },
    );

    it('an IPv6 client written with a dotted quad (2001:db8::1.2.3.4) stays IPv6, grouped by its /56 (catalogue E48)', async () => {
      const { keys, options, keyOf } = keyedByIp(storeName);
      await withApp(driver, { options, trustProxy: ['127.0.0.1'] }, async (app) => {
        const via = (address: string) => get(app.url, '/', { 'x-forwarded-for': address });
        expect((await via('2001:db8::1.2.3.4')).status).toBe(200);
        // Another dotted quad, and the hex spelling, in the same /56: the same bucket.
        expect((await via('2001:db8:0:ff::5.6.7.8')).status).toBe(429);
        expect((await via('2001:db8::102:304')).status).toBe(429);
        // The IPv4 address in its last 32 bits is another client, and so is the next /56.
        expect((await via('1.2.3.4')).status).toBe(200);
        expect((await via('2001:db8:0:100::1.2.3.4')).status).toBe(200);
      });
      expect(keys).toEqual([
        keyOf('2001:db8::'),
        keyOf('2001:db8::'),
        keyOf('2001:db8::'),
        keyOf('1.2.3.4'),
        keyOf('2001:db8:0:100::'),
      ]);
    });

    it('every form of one client in X-Forwarded-For is one key, and NAT64 clients are apart (issue 19, item 9)', async () => {
      const { keys, options, keyOf } = keyedByIp(storeName);
      await withApp(driver, { options, trustProxy: ['127.0.0.1'] }, async (app) => {
        const via = async (address: string) => (await get(app.url, '/', { 'x-forwarded-for': address })).status;
        // Before: Hono keyed the proxy for the bracketed address without a port, Express and Fastify a hash of it.
        expect(await via('[2001:db8:1:2::1]')).toBe(200);
        expect([await via('2001:db8:1:2::1'), await via('[2001:db8:1:2::1]:443')]).toEqual([429, 429]);
        expect(await via('[2001:db8:1:2::1%eth0]')).toBe(429);
        // Before: every NAT64 and every SIIT client shared one /56 key.
        expect(await via('64:ff9b::1.2.3.4')).toBe(200);
        expect([await via('1.2.3.4'), await via('::ffff:0:1.2.3.4'), await via('[64:ff9b::102:304]:80')]).toEqual([
          429, 429, 429,
        ]);
        expect(await via('64:ff9b::5.6.7.8')).toBe(200);
        expect(await via('::ffff:0:9.9.9.9')).toBe(200);
      });
      expect(keys).toEqual([
        ...new Array(4).fill(keyOf('2001:db8:1::')),
        ...new Array(4).fill(keyOf('1.2.3.4')),
        keyOf('5.6.7.8'),
        keyOf('9.9.9.9'),
      ]);
    });
  });
});

/** A request handler that sees the socket already closed: what runs before the limiter destroys it. */
interface ClosedSocketApp {
  name: string;
  /** Starts an app whose first middleware (or hook) destroys the socket and then lets the limiter run. */
  start(options: Record<string, unknown>): Promise<{ url: string; close(): Promise<void> }>;
}

// biome-ignore lint/suspicious/noExplicitAny: one starter serves two Express major versions.
function expressApp(name: string, express: any): ClosedSocketApp {
  return {
    name,
    async start(options) {
      const app = express();
      app.use((req: { socket: { destroy(): void } }, _res: unknown, next: () => void) => {
        req.socket.destroy();
        setImmediate(next);
      });
      app.use(rateLimit(options));
      app.get('/', (_req: unknown, res: { send(body: string): void }) => res.send('ok'));
      const server = createServer(app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      return {
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: one starter serves two Fastify major versions.
function fastifyApp(name: string, fastify: any): ClosedSocketApp {
  return {
    name,
    async start(options) {
      const app = fastify({ forceCloseConnections: true });
      app.addHook(
        'onRequest',
        (request: { raw: { socket: { destroy(): void } } }, _reply: unknown, done: () => void) => {
          request.raw.socket.destroy();
          setImmediate(done);
        },
      );
      await app.register(floodgate, options);
      app.get('/', async () => 'ok');
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
    },
  };
}

const CLOSED_SOCKET_APPS = [
  expressApp('express 5', express5),
  expressApp('express 4', express4),
  fastifyApp('fastify 5', fastify5),
  fastifyApp('fastify 4', fastify4),
];

describe.each(storeNames)('%s store, socket closed before the limiter runs', (storeName) => {
  it.each(CLOSED_SOCKET_APPS)(
    '$name counts the request under byIp’s fallback key, still limited, and warns once (catalogue E47 g)',
    async (starter) => {
      const f = fixture(storeName);
      const decisions: DecisionEvent[] = [];
      const warnings: FloodgateWarning[] = [];
      const app = await starter.start({
        limits: [{ name: 'ip', key: byIp(), algorithm }],
        clock: f.clock,
        store: f.store,
        prefix: f.prefix,
        onWarning: (warning: FloodgateWarning) => warnings.push(warning),
        onDecision: (event: DecisionEvent) => decisions.push(event),
      });
      try {
        for (let i = 1; i <= 3; i++) {
          // The server closes the connection: the client sees no response.
          await expect(fetch(app.url)).rejects.toThrow();
          await until(() => decisions.length === i);
        }
      } finally {
        await app.close();
      }
      const fallback = limiterKey(f.prefix, 'ip', algorithm, 'unknown');
      expect(decisions.map((event) => event.keys)).toEqual([[fallback], [fallback], [fallback]]);
      // One bucket for every such request: the limit of 1 holds.
      expect(decisions.map((event) => event.decision.allowed)).toEqual([true, false, false]);
      expect(warnings.map((warning) => warning.code)).toEqual([WarningCode.undefinedIp]);
    },
  );
});
