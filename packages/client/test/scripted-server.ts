/// <reference types="node" />
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

export interface Hit {
  /** performance.now() when the request's body had arrived. */
  at: number;
  method: string;
  body: string;
  headers: IncomingHttpHeaders;
}

export interface Answer {
  status: number;
  /** Fields by name, or field lines in order (a name may repeat: one field split over lines). */
  headers?: Record<string, string> | [string, string][];
}

export interface ScriptedServer {
  readonly url: string;
  readonly hits: Hit[];
}

/**
 * A real HTTP server on loopback answering the n-th request (0-based) with `script(n, hit)`; it
 * records every request and closes after the file's tests.
 */
export async function scriptedServer(script: (n: number, hit: Hit) => Answer): Promise<ScriptedServer> {
  const hits: Hit[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const hit = { at: performance.now(), method: req.method ?? '', body, headers: req.headers };
    const answer = script(hits.length, hit);
    hits.push(hit);
    const headers = Array.isArray(answer.headers) ? answer.headers.flat() : answer.headers;
    res.writeHead(answer.status, headers).end(`status ${answer.status}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

/** A 429 that says, in X-RateLimit-* (the only fields with sub-second resets), to wait `seconds`. */
export const tooMany = (seconds: number): Answer => ({
  status: 429,
  headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(seconds) },
});

export const ok: Answer = { status: 200 };
