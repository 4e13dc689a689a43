import { describe, expect, it } from 'vitest';
import fastify5 from 'fastify';
import fastify4Untyped from 'fastify4';
import { fixedWindow } from '@floodgate/core';
import floodgateDefault, { floodgate } from '../src/index';

const fastify4 = fastify4Untyped as unknown as typeof fastify5;
const T0 = Date.UTC(2026, 0, 1);

describe.each([
  ['fastify 5', fastify5],
  ['fastify 4', fastify4],
] as const)('%s (inject)', (_name, fastify) => {
  it('limits in onRequest and exposes request.rateLimit', async () => {
    const app = fastify();
    await app.register(floodgate, { limit: 1, window: '1m', clock: () => T0 });
    app.get('/', async (request) => ({ remaining: request.rateLimit?.remaining }));
    const allowed = await app.inject('/');
    expect(allowed.json()).toEqual({ remaining: 0 });
    expect(allowed.headers['ratelimit-policy']).toBe('"ip";q=1;w=60');
    const denied = await app.inject({ url: '/', headers: { accept: 'text/plain' } });
    expect(denied.statusCode).toBe(429);
    expect(denied.headers['retry-after']).toBe('120');
    expect(denied.body).toBe('Too many requests; try again in 120 seconds.');
    await app.close();
  });

  it('routes override with config.rateLimit or opt out with false; handler answers a deny', async () => {
    const app = fastify();
    // A frozen clock (the route's own layers take it too): on the real one a minute boundary
    // between the requests to /own would reset its fixed window.
    await app.register(floodgateDefault, { limit: 1, window: '1m', clock: () => T0 });
    app.get('/free', { config: { rateLimit: false } }, async () => 'free');
    const own = { limits: [{ name: 'route', key: () => 'all', algorithm: fixedWindow({ limit: 2, window: '1m' }) }] };
    app.get('/own', { config: { rateLimit: own } }, async () => 'own');
    const handler = async (_request: unknown, reply: { code(n: number): { send(body: string): unknown } }) =>
      reply.code(429).send('custom');
    app.get('/handled', { config: { rateLimit: { handler } } }, async () => 'handled');
    for (let i = 0; i < 3; i++) expect((await app.inject('/free')).headers.ratelimit).toBeUndefined();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await app.inject('/own')).statusCode);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await app.inject('/own')).headers['ratelimit-policy']).toBe('"route";q=2;w=60');
    expect((await app.inject('/handled')).body).toBe('handled');
    expect((await app.inject('/handled')).body).toBe('custom');
    await app.close();
  });

  it('a route that changes only how a denial looks, its cost or what it skips counts in the app-wide limit (issue 9, item 2)', async () => {
    const app = fastify();
    await app.register(floodgate, { limit: 3, window: '1m', clock: () => T0 });
    app.get('/', async () => 'app');
    app.get('/teapot', { config: { rateLimit: { statusCode: 418 } } }, async () => 'teapot');
    app.get('/message', { config: { rateLimit: { message: 'slow down', legacyHeaders: false } } }, async () => 'msg');
    app.get('/costly', { config: { rateLimit: { cost: () => 2 } } }, async () => 'costly');
    app.get('/hooked', { config: { rateLimit: { onDecision: () => {} } } }, async () => 'hooked');
    // One budget of 3 for the client, wherever it spends it.
    expect((await app.inject('/')).statusCode).toBe(200);
    expect((await app.inject('/costly')).headers.ratelimit).toBe('"ip";r=0;t=120');
    expect((await app.inject('/teapot')).statusCode).toBe(418);
    const message = await app.inject('/message');
    expect([message.statusCode, message.body]).toEqual([429, 'slow down']);
    expect((await app.inject('/hooked')).statusCode).toBe(429);
    expect((await app.inject('/')).statusCode).toBe(429);
    await app.close();
  });

  it('rejects bad plugin and route options when registering', async () => {
    const app = fastify();
    await expect(app.register(floodgate, { limit: 0, window: '1m' }).ready()).rejects.toThrow(/limit.*0/);
    const other = fastify();
    await other.register(floodgate, { limit: 1, window: '1m' });
    expect(() => other.get('/', { config: { rateLimit: { statusCode: 99 } } }, async () => '')).toThrow(
      /config\.rateLimit of GET \/\.statusCode.*99/,
    );
    await other.close();
  });
});
