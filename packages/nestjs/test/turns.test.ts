import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { byIp, fixedWindow } from '@floodgate/core';
import { RedisStore } from '@floodgate/redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisForSuite } from '../../../test/helpers/redis-server.ts';
import { platforms, startNest } from './apps';

/**
 * The requests that reach the guard in one turn of the event loop are decided together: with a
 * RedisStore, one script call for all of them. Nest runs each request's guard in a microtask
 * chain of its own; decided at once, each would go to Redis alone.
 *
 * Twelve requests written on twelve connections in one synchronous run usually reach the server
 * in one turn, but not always: on a busy host the kernel may defer loopback delivery, and the
 * server then reads them over two turns. So the test counts the turns in which the server read
 * requests, and asks for one script call per such turn.
 */

const SOCKETS = 12;

/** Counts the turns of the event loop in which `server` reads requests (a turn ends at setImmediate). */
function turnsReading(server: Server): { readonly count: number; stop(): void } {
  let count = 0;
  let open = false;
  const close = () => {
    open = false;
  };
  const onRequest = () => {
    if (open) return;
    open = true;
    count++;
    setImmediate(close);
  };
  server.prependListener('request', onRequest);
  return {
    get count() {
      return count;
    },
    stop: () => server.off('request', onRequest),
  };
}

let redis: { url: string; stop(): Promise<void> };
let client: Redis;
let admin: Redis;

beforeAll(async () => {
  redis = await redisForSuite();
  client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
  admin = new Redis(redis.url, { lazyConnect: true });
  await Promise.all([client.connect(), admin.connect()]);
});
afterAll(async () => {
  client?.disconnect();
  admin?.disconnect();
  await redis?.stop();
});

/** Script calls Redis has run since the last CONFIG RESETSTAT. */
async function scriptCalls(): Promise<number> {
  const stats = await admin.info('commandstats');
  let calls = 0;
  for (const match of stats.matchAll(/^cmdstat_(eval|evalsha|fcall)[^:]*:calls=(\d+)/gm)) calls += Number(match[2]);
  return calls;
}

/** A keep-alive connection that reads its responses one at a time (each a status line, headers and a sized body). */
function connection(port: number): Promise<{ socket: Socket; next(): Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffer = '';
    let waiting: ((status: number) => void) | undefined;
    const drain = () => {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0 || waiting === undefined) return;
      const length = Number(/content-length: *(\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
      if (buffer.length < end + 4 + length) return;
      const status = Number(buffer.slice(9, 12));
      buffer = buffer.slice(end + 4 + length);
      const done = waiting;
      waiting = undefined;
      done(status);
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      drain();
    });
    socket.once('error', reject);
    socket.once('connect', () =>
      resolve({
        socket,
        next: () =>
          new Promise((done) => {
            waiting = done;
            drain();
          }),
      }),
    );
  });
}

const REQUEST = 'GET /items HTTP/1.1\r\nHost: test\r\n\r\n';

describe.each(platforms)('%s platform, RedisStore', (platform) => {
  it('decides the requests read in one turn with one script call', async () => {
    const app = await startNest(platform, {
      limits: [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 1000, window: '1m' }) }],
      store: new RedisStore({ client, prefix: `turns:${platform}:` }),
      onWarning: () => {},
    });
    const port = Number(new URL(app.url).port);
    const connections = await Promise.all(Array.from({ length: SOCKETS }, () => connection(port)));
    try {
      // One request on each connection first, so that the server has accepted and read every one.
      for (const { socket } of connections) socket.write(REQUEST);
      expect(await Promise.all(connections.map((c) => c.next()))).toEqual(Array(SOCKETS).fill(200));
      await admin.config('RESETSTAT');
      const turns = turnsReading(app.server);
      // Written in one synchronous run: on loopback each is normally in the server's receive buffer
      // when write() returns, so the server reads them all in its next turn.
      for (const { socket } of connections) socket.write(REQUEST);
      expect(await Promise.all(connections.map((c) => c.next()))).toEqual(Array(SOCKETS).fill(200));
      turns.stop();
      // Fewer turns than requests: some turn read several, which one call per request would not match.
      expect(turns.count).toBeLessThan(SOCKETS);
      expect(await scriptCalls()).toBe(turns.count);
    } finally {
      for (const { socket } of connections) socket.destroy();
      await app.close();
    }
  });
});
