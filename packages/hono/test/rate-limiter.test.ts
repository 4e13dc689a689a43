/// <reference types="node" />
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { WarningCode } from '@floodgate/core';
import { rateLimiter } from '../src/index';
import type { FloodgateWarning } from '@floodgate/core';

const T0 = Date.UTC(2026, 0, 1);

function app(options: Parameters<typeof rateLimiter>[0]) {
  const hono = new Hono();
  hono.use(rateLimiter(options));
  hono.get('/', (c) => c.json({ remaining: c.get('rateLimit')?.remaining ?? null }));
  return hono;
}

describe('rateLimiter (app.request)', () => {
  it('counts a request once when the same instance is mounted on two matching paths, and warns once', async () => {
    const warnings: FloodgateWarning[] = [];
    const limiter = rateLimiter({
      limit: 2,
      window: '1m',
      clock: () => T0,
      getConnInfo: () => ({ remote: { address: '203.0.113.8' } }),
      onWarning: (warning) => warnings.push(warning),
    });
    const hono = new Hono();
    hono.use(limiter);
    hono.use('/api/*', limiter);
    hono.get('/api/x', (c) => c.json({ remaining: c.get('rateLimit')?.remaining ?? null }));
    expect(await (await hono.request('/api/x')).json()).toEqual({ remaining: 1 });
    expect(await (await hono.request('/api/x')).json()).toEqual({ remaining: 0 });
    expect((await hono.request('/api/x')).status).toBe(429);
    expect(warnings.map((warning) => warning.code)).toEqual([WarningCode.doubleCount]);
  });

  it('limits with the peer from getConnInfo and exposes c.get("rateLimit")', async () => {
    const hono = app({
      limit: 1,
      window: '1m',
      clock: () => T0,
      getConnInfo: () => ({ remote: { address: '203.0.113.7' } }),
    });
    const allowed = await hono.request('/');
    expect(await allowed.json()).toEqual({ remaining: 0 });
    expect(allowed.headers.get('ratelimit')).toBe('"ip";r=0;t=120');
    const denied = await hono.request('/');
    expect(denied.status).toBe(429);
    expect(denied.headers.get('retry-after')).toBe('120');
    expect(denied.headers.get('content-type')).toBe('application/problem+json');
  });

  it('reads X-Forwarded-For only through trusted proxies', async () => {
    const peer = { getConnInfo: () => ({ remote: { address: '10.0.0.2' } }) };
    const trusting = app({ limit: 1, window: '1m', trustProxy: ['10.0.0.0/8'], ...peer });
    expect((await trusting.request('/', { headers: { 'x-forwarded-for': '198.51.100.1' } })).status).toBe(200);
    expect((await trusting.request('/', { headers: { 'x-forwarded-for': '198.51.100.2' } })).status).toBe(200);
    const byHops = app({ limit: 1, window: '1m', trustProxy: 1, ...peer });
    expect((await byHops.request('/', { headers: { 'x-forwarded-for': '1.1.1.1, 198.51.100.1' } })).status).toBe(200);
    expect((await byHops.request('/', { headers: { 'x-forwarded-for': '2.2.2.2, 198.51.100.1' } })).status).toBe(429);
  });

  it('without an address uses byIp’s fallback key and warns once', async () => {
    const warnings: FloodgateWarning[] = [];
    const hono = app({ limit: 1, window: '1m', onWarning: (w) => warnings.push(w) });
    expect((await hono.request('/')).status).toBe(200);
    expect((await hono.request('/')).status).toBe(429);
    expect(warnings.map((w) => w.code)).toEqual([WarningCode.undefinedIp]);
    expect(warnings[0]?.message).toContain("'unknown'");
  });

  it('message and handler replace the default 429 body', async () => {
    const peer = { getConnInfo: () => ({ remote: { address: '203.0.113.8' } }) };
    const messaged = app({
      limit: 1,
      window: '1m',
      message: (_c, decision) => ({ wait: decision.retryAfter > 0 }),
      ...peer,
    });
    await messaged.request('/');
    const denied = await messaged.request('/');
    expect([denied.status, await denied.json()]).toEqual([429, { wait: true }]);
    const handled = app({
      limit: 1,
      window: '1m',
      clock: () => T0,
      handler: (c, decision) => c.text(`later: ${decision.rule}`, 429),
      ...peer,
    });
    await handled.request('/');
    const custom = await handled.request('/');
    expect([custom.status, await custom.text(), custom.headers.get('retry-after')]).toEqual([429, 'later: ip', '120']);
  });

  it('rejects bad options at construction', () => {
    expect(() => rateLimiter({ limit: 1, window: '1m', trustProxy: 'yes' as never })).toThrow(/trustProxy.*"yes"/);
    expect(() => rateLimiter({ limit: 1, window: '1m', trustProxy: ['300.1.1.1'] })).toThrow(
      /trustProxy\[0\].*"300.1.1.1"/,
    );
    expect(() => rateLimiter({ limit: 1, window: '1m', getConnInfo: 'x' as never })).toThrow(/getConnInfo.*"x"/);
  });

  it('is edge-safe: the source imports nothing from Node', () => {
    const dir = new URL('../src/', import.meta.url);
    for (const file of readdirSync(dir)) {
      expect(readFileSync(new URL(file, dir), 'utf8')).not.toMatch(/from ['"](node:|fs|net|http|path)/);
    }
  });
});

describe('rateLimiter on @hono/node-server', () => {
  it.each([
    ['the socket address', {}],
    ['getConnInfo', { getConnInfo }],
  ])('keys by %s', async (_name, extra) => {
    const warnings: string[] = [];
    const hono = app({ limit: 1, window: '1m', onWarning: (w) => warnings.push(w.code), ...extra });
    const { url, close } = await new Promise<{ url: string; close: () => void }>((resolve) => {
      const server = serve({ fetch: hono.fetch, port: 0, hostname: '127.0.0.1' }, () => {
        const { port } = server.address() as AddressInfo;
        resolve({ url: `http://127.0.0.1:${port}/`, close: () => server.close() });
      });
    });
    try {
      expect((await fetch(url)).status).toBe(200);
      expect((await fetch(url, { headers: { 'x-forwarded-for': '198.51.100.9' } })).status).toBe(429);
      expect(warnings).toEqual([WarningCode.untrustedForwardedFor]);
    } finally {
      close();
    }
  });

  it("never trusts a client header for the address on Node, even with Workers' getConnInfo (issue 9, item 9)", async () => {
    // The README used to show this import: on Node it reads CF-Connecting-IP, which the client sends.
    const { getConnInfo: workersConnInfo } = await import('hono/cloudflare-workers');
    const warnings: FloodgateWarning[] = [];
    const hono = app({ limit: 1, window: '1m', onWarning: (w) => warnings.push(w), getConnInfo: workersConnInfo });
    const { url, close } = await new Promise<{ url: string; close: () => void }>((resolve) => {
      const server = serve({ fetch: hono.fetch, port: 0, hostname: '127.0.0.1' }, () => {
        const { port } = server.address() as AddressInfo;
        resolve({ url: `http://127.0.0.1:${port}/`, close: () => server.close() });
      });
    });
    try {
      // A fresh CF-Connecting-IP per request no longer buys a fresh bucket: the socket's address counts.
      expect((await fetch(url, { headers: { 'cf-connecting-ip': '1.2.3.4' } })).status).toBe(200);
      expect((await fetch(url, { headers: { 'cf-connecting-ip': '5.6.7.8' } })).status).toBe(429);
      expect((await fetch(url)).status).toBe(429);
      expect(warnings.map((w) => w.code)).toEqual([WarningCode.connInfoHeader]);
      expect(warnings[0]?.message).toMatch(
        /answered "1\.2\.3\.4" where the socket's peer is "(127\.0\.0\.1|::ffff:127\.0\.0\.1)"/,
      );
    } finally {
      close();
    }
  });
});
