import { serve } from '@hono/node-server';
import { floodgate } from '@floodgate/fastify';
import { rateLimit } from '@floodgate/express';
import { rateLimiter } from '@floodgate/hono';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { codeBlocks, section } from './support/readmes.ts';

// The responses the root README shows under "What a limited client receives" are what the three
// adapters send: same status, same rate-limit headers, same body, at the README's instant.

const AT = Date.UTC(2026, 0, 1, 12, 0, 20);
const OPTIONS = { limit: 100, window: '1m', clock: () => AT } as const;

interface Exchange {
  status: string;
  headers: Record<string, string>;
  body: string;
}

/** The README's HTTP blocks, in order: the first response, the 429 as problem+json, the 429 as text. */
function shown(): Exchange[] {
  const text = section('README.md', 'What a limited client receives');
  return codeBlocks('README.md')
    .filter((block) => block.lang === 'http' && text.includes(block.code.trim()))
    .map((block) => {
      const [head = '', body = ''] = block.code.split(/\n\n/);
      const [statusLine = '', ...lines] = head.trim().split('\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      return { status: statusLine.replace(/^HTTP\/1\.1 /, ''), headers, body: body.trim() };
    });
}

type Start = () => Promise<{ url: string; close(): Promise<void> }>;

const adapters: Record<string, Start> = {
  express: async () => {
    const app = express();
    app.use(rateLimit(OPTIONS));
    app.get('/', (_req, res) => {
      res.send('hello');
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  },
  fastify: async () => {
    const app = Fastify();
    await app.register(floodgate, OPTIONS);
    app.get('/', async () => 'hello');
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: `${url}/`, close: () => app.close() };
  },
  hono: async () => {
    const app = new Hono();
    app.use(rateLimiter(OPTIONS));
    app.get('/', (c) => c.text('hello'));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
    });
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  },
};

async function exchange(url: string, accept?: string): Promise<Exchange & { raw: Headers }> {
  const response = await fetch(url, accept === undefined ? {} : { headers: { accept } });
  const reason = response.status === 200 ? 'OK' : 'Too Many Requests';
  return { status: `${response.status} ${reason}`, headers: {}, body: await response.text(), raw: response.headers };
}

/** The shown exchange, checked against a real one: every shown header, and (when `complete`) every rate-limit header sent. */
function expectShown(real: Exchange & { raw: Headers }, expected: Exchange, complete: boolean): void {
  expect(real.status).toBe(expected.status);
  for (const [name, value] of Object.entries(expected.headers)) {
    // Express and Fastify add `; charset=utf-8` to every type, Hono only to text: the media type is what counts.
    const actual = name === 'content-type' ? real.raw.get(name)?.split(';')[0] : real.raw.get(name);
    expect([name, actual]).toEqual([name, name === 'content-type' ? value.split(';')[0] : value]);
  }
  if (complete) {
    const sent: string[] = [];
    real.raw.forEach((_, name) => {
      if (/ratelimit|retry-after/.test(name)) sent.push(name);
    });
    expect(sent.sort()).toEqual(
      Object.keys(expected.headers)
        .filter((name) => name !== 'content-type')
        .sort(),
    );
  }
  if (expected.headers['content-type']?.startsWith('application/problem+json')) {
    expect(JSON.parse(real.body)).toEqual(JSON.parse(expected.body));
  } else if (expected.body !== '') {
    expect(real.body).toBe(expected.body);
  }
}

describe.each(Object.entries(adapters))('%s', (_, start) => {
  it("sends exactly the headers and bodies the root README shows, at the README's instant", async () => {
    const [first, problem, text] = shown();
    expect([first, problem, text].every(Boolean)).toBe(true);
    const server = await start();
    try {
      expectShown(await exchange(server.url), first as Exchange, true);
      for (let i = 2; i <= 100; i++) expect((await exchange(server.url)).status).toBe('200 OK');
      expectShown(await exchange(server.url), problem as Exchange, true);
      expectShown(await exchange(server.url, 'text/html'), text as Exchange, false);
    } finally {
      await server.close();
    }
  });
});
