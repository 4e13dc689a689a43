import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bundleWorker } from './bundle.ts';
import { fetchFrom, startWorkers } from './miniflare.ts';
import type { Miniflare } from 'miniflare';

/**
 * @floodgate/hono in workerd over DurableObjectStore: shadow rules, penalties, the operator's
 * block and unblock through the middleware's controls, and the reserve with `priority`. Two Workers
 * (two isolates, each with its own limiters) share the objects; each reads its own injected clock,
 * which the tests set on both, and the store sends the readings to the objects.
 */

const T0 = 1_700_000_000_000;
let mf: Miniflare;
beforeAll(async () => {
  mf = startWorkers(await bundleWorker('hono-controls'), [
    { name: 'a', objectClass: 'FloodgateObject' },
    { name: 'b', objectClass: 'FloodgateObject', objectOwner: 'a' },
  ]);
  await mf.ready;
});
afterAll(() => mf?.dispose());
// Each test starts at T0, with clients of its own.
beforeEach(() => at(0));

/** Sets both Workers' clocks to T0 + ms. */
async function at(ms: number): Promise<void> {
  for (const worker of ['a', 'b']) {
    const response = await fetchFrom(mf, worker, '/clock', { method: 'POST', body: JSON.stringify({ now: T0 + ms }) });
    await response.arrayBuffer();
  }
}

interface Answer {
  status: number;
  retryAfter: string | null;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: the route's JSON, read field by field.
  json: any;
}

async function call(path: string, headers: Record<string, string>, worker = 'a', method = 'GET'): Promise<Answer> {
  const response = await fetchFrom(mf, worker, path, { method, headers });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  return { status: response.status, retryAfter: response.headers.get('retry-after'), headers: response.headers, json };
}

const from = (address: string, extra: Record<string, string> = {}) => ({ 'cf-connecting-ip': address, ...extra });
const control = (route: string, op: string, headers: Record<string, string>, query = '') =>
  call(`/admin/${route}/${op}${query}`, headers, 'a', 'POST');

describe('@floodgate/hono in workerd, DurableObjectStore', () => {
  it('a shadow rule is decided and charged where it allows, and its denial stops nothing', async () => {
    const client = from('198.51.100.11');
    for (let i = 1; i <= 4; i++) {
      const answer = await call('/limited/shadow/x', client, i % 2 === 0 ? 'b' : 'a');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ratelimit-policy')).toBe('"ip";q=10;w=60');
      expect(answer.json).toMatchObject({ allowed: true, rule: 'ip', remaining: 10 - i, shadowDenied: i > 2 });
      expect(answer.json.results[1]).toEqual({
        rule: 'trial',
        allowed: i <= 2,
        remaining: Math.max(0, 2 - i),
        limit: 2,
        shadow: true,
      });
    }
    const peeked = await control('shadow', 'peek', client, '?cost=0');
    expect(peeked.json.results).toEqual([
      { rule: 'ip', allowed: true, remaining: 6, limit: 10, shadow: false },
      { rule: 'trial', allowed: true, remaining: 0, limit: 2, shadow: true },
    ]);
  });

  it('issue 19.2: a shadow rule refuses nothing, whatever the cost: above its capacity, or 0 once it is used up', async () => {
    const client = from('198.51.100.17');
    const dear = await call('/limited/shadow/x', { ...client, 'x-cost': '3' });
    expect(dear.status).toBe(200);
    expect(dear.json).toMatchObject({ allowed: true, rule: 'ip', remaining: 7, shadowDenied: true });
    expect(dear.json.results[1]).toEqual({ rule: 'trial', allowed: false, remaining: 2, limit: 2, shadow: true });
    for (let i = 0; i < 2; i++) expect((await call('/limited/shadow/x', client, 'b')).status).toBe(200);
    const free = await call('/limited/shadow/x', { ...client, 'x-cost': '0' });
    expect(free.status).toBe(200);
    expect(free.json).toMatchObject({ allowed: true, rule: 'ip', remaining: 5 });
    expect(free.json.results[1]).toEqual({ rule: 'trial', allowed: true, remaining: 0, limit: 2, shadow: true });
  });

  it('a penalty keeps the client out on every Worker, doubles on a repeat, and unblock forgets it', async () => {
    const client = from('198.51.100.12');
    const offend = async (worker: string) => {
      for (let i = 0; i < 2; i++) expect((await call('/limited/login/x', client, worker)).status).toBe(200);
      const refused = await call('/limited/login/x', client, worker);
      expect(refused.status).toBe(429);
      return refused.retryAfter;
    };
    expect(await offend('a')).toBe('300');
    await at(100_000);
    expect((await call('/limited/login/x', client, 'b')).retryAfter).toBe('200');
    await at(300_000);
    expect(await offend('b')).toBe('600');
    expect((await call('/limited/login/x', client, 'a')).retryAfter).toBe('600');
    // Lifted, and the offences forgotten: in the next window, 300 s again, not 1200.
    expect((await control('login', 'unblock', client)).status).toBe(200);
    await at(360_000);
    expect(await offend('a')).toBe('300');
  });

  it('unblock lets a penalised client in at once: its next request in the same window is admitted', async () => {
    const client = from('198.51.100.17');
    for (let i = 0; i < 2; i++) expect((await call('/limited/login/x', client)).status).toBe(200);
    expect((await call('/limited/login/x', client)).retryAfter).toBe('300');
    await at(10_000);
    // Through the Worker that answers next: another keeps the denial it cached until its retry time.
    expect((await control('login', 'unblock', client)).status).toBe(200);
    expect((await call('/limited/login/x', client)).json).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('a penalty given while the reserve has room holds normal requests only: critical ones still use it', async () => {
    const normal = from('198.51.100.18');
    const critical = from('198.51.100.18', { 'x-priority': 'critical' });
    for (let i = 0; i < 3; i++) expect((await call('/limited/reserve-penalty/x', normal)).status).toBe(200);
    expect((await call('/limited/reserve-penalty/x', normal, 'b')).retryAfter).toBe('300');
    for (let remaining = 1; remaining >= 0; remaining--) {
      const answer = await call('/limited/reserve-penalty/x', critical, 'b');
      expect(answer.json).toMatchObject({ allowed: true, limit: 5, remaining });
    }
    expect((await call('/limited/reserve-penalty/x', critical)).retryAfter).toBe('300');
    expect((await call('/limited/reserve-penalty/x', normal)).retryAfter).toBe('300');
  });

  it("the operator's block covers each of the request's keys, in every object, until unblock", async () => {
    const blocked = from('198.51.100.13', { 'x-user': 'u13' });
    expect((await control('pair', 'block', blocked, '?for=1m')).json).toEqual({ done: 'block' });
    const sameAddress = await call('/limited/pair/x', from('198.51.100.13'), 'b');
    expect([sameAddress.status, sameAddress.retryAfter, sameAddress.json['violated-policies']]).toEqual([
      429,
      '60',
      ['ip'],
    ]);
    const sameUser = await call('/limited/pair/x', from('198.51.100.14', { 'x-user': 'u13' }), 'b');
    expect([sameUser.status, sameUser.json['violated-policies']]).toEqual([429, ['user']]);
    expect((await call('/limited/pair/x', from('198.51.100.14', { 'x-user': 'u14' }), 'b')).status).toBe(200);
    await at(30_000);
    expect((await call('/limited/pair/x', from('198.51.100.13'), 'b')).retryAfter).toBe('30');
    expect((await control('pair', 'unblock', blocked)).status).toBe(200);
    expect((await call('/limited/pair/x', from('198.51.100.13'))).json).toMatchObject({ allowed: true, remaining: 9 });
    expect((await call('/limited/pair/x', from('198.51.100.15', { 'x-user': 'u13' }))).status).toBe(200);
    // reset: the counts go too.
    expect((await control('pair', 'reset', blocked)).status).toBe(200);
    expect((await control('pair', 'peek', blocked, '?cost=0')).json.results).toMatchObject([
      { rule: 'ip', remaining: 10 },
      { rule: 'user', remaining: 10 },
    ]);
  });

  it('the reserve: normal requests stop where it begins, critical ones use it, each told its own limit', async () => {
    const normal = from('198.51.100.16');
    const critical = from('198.51.100.16', { 'x-priority': 'critical' });
    for (let i = 1; i <= 3; i++) {
      expect((await call('/limited/reserve/x', normal, i % 2 === 0 ? 'b' : 'a')).json).toMatchObject({
        allowed: true,
        limit: 3,
        remaining: 3 - i,
      });
    }
    expect((await call('/limited/reserve/x', normal)).status).toBe(429);
    for (let i = 1; i <= 2; i++) {
      expect((await call('/limited/reserve/x', critical, 'b')).json).toMatchObject({
        allowed: true,
        limit: 5,
        remaining: 2 - i,
      });
    }
    expect((await call('/limited/reserve/x', critical)).status).toBe(429);
    expect((await call('/limited/reserve/x', normal, 'b')).status).toBe(429);
  });
});
