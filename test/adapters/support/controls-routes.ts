import { limitHeaders } from '../drivers.ts';
import type { Decision, Duration } from '@floodgate/core';
import type { RateLimitControls } from '@floodgate/core/http';

/** What the test apps' routes answer, and the client the suites call them with. */

/** A decision as a route reports it: the numbers a test compares, and each layer's own. */
export interface Summary {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfter: number;
  rule: string | undefined;
  shadowDenied: boolean;
  results: { rule: string; allowed: boolean; remaining: number; limit: number; shadow: boolean }[];
}

export function summaryOf(decision: unknown): Summary | null {
  if (decision === undefined || decision === null) return null;
  const { allowed, limit, remaining, retryAfter, rule, shadowDenied, results } = decision as Decision;
  return {
    allowed,
    limit,
    remaining,
    retryAfter,
    rule,
    shadowDenied,
    results: results.map((layer) => ({
      rule: layer.rule,
      allowed: layer.allowed,
      remaining: layer.remaining,
      limit: layer.limit,
      shadow: layer.shadow,
    })),
  };
}

/**
 * What a limited route answers: the decision it saw, after the refunds asked for in the query
 * (`?refund=30,30`: `req.rateLimit.refund(30)` twice, one after the other), each reported as
 * `'ok'` or the code it was rejected with.
 */
export async function limitedAnswer(
  decision: unknown,
  url: string,
): Promise<(Summary & { refunds?: string[] }) | null> {
  const asked = new URL(url, 'http://app').searchParams.get('refund');
  if (asked === null || decision === undefined || decision === null) return summaryOf(decision);
  const refunds: string[] = [];
  for (const units of asked.split(',')) {
    try {
      await (decision as { refund(n: number): Promise<void> }).refund(Number(units));
      refunds.push('ok');
    } catch (error) {
      refunds.push((error as { code?: string }).code ?? String(error));
    }
  }
  return { ...(summaryOf(decision) as Summary), refunds };
}

/**
 * Runs one control for the calling request. The query is passed on as the client sent it: `rule`
 * when present (even empty), `ms` as a number when it is all digits, else as a duration string.
 */
export async function controlAnswer(
  controls: RateLimitControls<unknown>,
  req: unknown,
  op: string,
  url: string,
): Promise<{ status: number; body: unknown }> {
  const query = new URL(url, 'http://app').searchParams;
  // `?selector=x` passes the string itself where `{ rule }` belongs, as a hurried caller might.
  const selector = query.has('selector')
    ? (query.get('selector') as never)
    : query.has('rule')
      ? { rule: query.get('rule') as string }
      : {};
  try {
    switch (op) {
      case 'peek': {
        const cost = query.get('cost');
        return { status: 200, body: summaryOf(await controls.peek(req, cost === null ? {} : { cost: Number(cost) })) };
      }
      case 'reset':
        await controls.reset(req, selector);
        return { status: 200, body: { done: op } };
      case 'block': {
        const ms = query.get('ms') ?? '';
        await controls.block(req, (/^-?\d+$/.test(ms) ? Number(ms) : ms) as Duration, selector);
        return { status: 200, body: { done: op } };
      }
      case 'unblock':
        await controls.unblock(req, selector);
        return { status: 200, body: { done: op } };
      default:
        return { status: 404, body: { error: `no control ${op}` } };
    }
  } catch (error) {
    const { name, message, code } = error as Error & { code?: string };
    return { status: 400, body: { name, code, message } };
  }
}

export interface Answer {
  status: number;
  /** The rate-limit fields only (lower-case names), as drivers.ts picks them. */
  headers: Record<string, string>;
  cacheControl: string | null;
  contentType: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whichever fields the route answered.
  json: any;
}

/** One GET; the body parsed as JSON when it is JSON. */
export async function call(base: string, path = '/', headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(base + path, { headers });
  const contentType = response.headers.get('content-type');
  const text = await response.text();
  return {
    status: response.status,
    headers: limitHeaders(response.headers),
    cacheControl: response.headers.get('cache-control'),
    contentType,
    json: /json/.test(contentType ?? '') ? JSON.parse(text) : text,
  };
}

/** `count` GETs one after another; their statuses. */
export async function statuses(
  base: string,
  count: number,
  path = '/',
  headers: Record<string, string> = {},
): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push((await call(base, path, headers)).status);
  return seen;
}
