import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { byIp, fixedWindow } from '@floodgate/core';
import { drivers, get } from './drivers.ts';
import { fixture, useRedis, withApp } from './suite.ts';
import type { DecisionEvent, StoreErrorEvent } from '@floodgate/core';

/**
 * Catalogue E48: a slow request is no trigger for a store error. Headers or a body that trickle in
 * over longer than the store deadline (100 ms) must not count against it: the limiter asks Redis
 * only once the headers are in, and does not wait for the body. Otherwise a client could make its
 * own requests degrade (and, with failMode 'open', pass).
 */

useRedis();

/** A pause longer than the limiter's deadline: the slow client's doing, not a synchronisation. */
const PAUSE_MS = 250;
const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS));

/** Writes `pieces` to a fresh connection with a pause before each but the first; resolves with the status. */
async function trickle(url: string, pieces: string[]): Promise<number> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  let received = '';
  const status = new Promise<number>((resolve, reject) => {
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (match) resolve(Number(match[1]));
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`closed before a status line: ${JSON.stringify(received)}`)));
  });
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  try {
    for (const [i, piece] of pieces.entries()) {
      if (i > 0) await pause();
      socket.write(piece);
    }
    return await status;
  } finally {
    socket.destroy();
  }
}

describe.each(drivers)('$name with a RedisStore', (driver) => {
  it('headers or a body trickled in slower than the store deadline are decided by Redis, with no store error', async () => {
    const f = fixture('redis');
    const decisions: DecisionEvent[] = [];
    const errors: StoreErrorEvent[] = [];
    const options = {
      limits: [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 100, window: '1m' }) }],
      clock: f.clock,
      store: f.store,
      prefix: f.prefix,
      failMode: 'open',
      onDecision: (event: DecisionEvent) => decisions.push(event),
      onStoreError: (event: StoreErrorEvent) => errors.push(event),
    };
    await withApp(driver, { options }, async (app) => {
      const slowHeaders = trickle(app.url, [
        'GET / HTTP/1.1\r\nHost: x\r\n',
        'X-Slow: 1\r\n',
        'X-Slower: 2\r\n',
        '\r\n',
      ]);
      // Others are served meanwhile, and by Redis.
      expect((await get(app.url)).status).toBe(200);
      expect(await slowHeaders).toBe(200);
      const slowBody = trickle(app.url, [
        // A body on a GET, so that every driver has a route for it (their apps serve GET only).
        'GET /upload HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\n',
        'first',
        ' second',
      ]);
      expect(await slowBody).toBe(200);
    });
    expect(errors).toEqual([]);
    expect(decisions).toHaveLength(3);
    expect(decisions.map((event) => event.decision.degraded)).toEqual([false, false, false]);
  });
});
