import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisStore } from '@floodgate/redis';
import { startRedis, type RedisServer } from '../helpers/redis-server.ts';
import { makeCertificates, type TestCertificates } from '../helpers/redis-tls.ts';
import { startApp } from '../chaos/support/app.ts';
import { expectTraceAgrees } from '../conformance/agree.ts';
import { ALGORITHM_KINDS } from './fixtures/algorithms.ts';
import { deleteTestKeys } from './fixtures/client.ts';
import { CLIENT_FAMILIES, connectFamily, type FamilyClient } from './fixtures/families.ts';

/**
 * Issue 20: Redis over TLS only (`--port 0 --tls-port`), with a throwaway CA and server certificate
 * made by the test. Every client family, set up as packages/redis/README.md shows, runs the
 * conformance trace and an Express app against it.
 */
const OPERATIONS = 500;

let certs: TestCertificates;
let server: RedisServer;
let admin: Redis;
beforeAll(async () => {
  certs = makeCertificates();
  server = await startRedis({ tls: certs });
  admin = new Redis({ host: '127.0.0.1', port: server.port, tls: { ca: certs.caPem }, lazyConnect: true });
  await admin.connect();
});
afterAll(async () => {
  if (admin) await deleteTestKeys(admin);
  admin?.disconnect();
  await server?.stop();
  certs?.remove();
});

describe('the server', () => {
  it('listens on TLS only, and a client that does not trust the CA cannot connect', async () => {
    expect(await admin.config('GET', 'port')).toEqual(['port', '0']);
    const stranger = new Redis({
      host: '127.0.0.1',
      port: server.port,
      tls: {},
      lazyConnect: true,
      retryStrategy: () => null,
    });
    const errors: string[] = [];
    stranger.on('error', (error: Error) => errors.push(error.message));
    await expect(stranger.connect()).rejects.toThrow();
    expect(errors[0]).toMatch(/certificate/);
    stranger.disconnect();
  });
});

describe.each(CLIENT_FAMILIES)('%s over TLS', (family) => {
  let client: FamilyClient | undefined;
  beforeAll(async () => {
    client = await connectFamily(family, server.url, { tlsCa: certs.caPem });
  });
  afterAll(async () => {
    await client?.close();
  });
  const connected = () => (client as FamilyClient).client;

  it.each(ALGORITHM_KINDS)(`%s: TypeScript and Lua agree on ${OPERATIONS} random operations`, async (kind) => {
    await expectTraceAgrees(kind, connected(), family, OPERATIONS);
  });

  it('limits an Express app: 200, 200, then 429, every decision from Redis', async () => {
    const app = await startApp({ store: new RedisStore({ client: connected() }), limit: 2, timeout: 2000 });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push(
          (await fetch(app.url, { headers: { 'x-client': `tls-${family}`, 'x-request': String(i) } })).status,
        );
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(app.decisions.map((d) => d.degraded)).toEqual([false, false, false]);
      expect(app.storeErrors).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
