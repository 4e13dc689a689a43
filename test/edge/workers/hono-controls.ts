import { Hono } from 'hono';
import { getConnInfo } from 'hono/cloudflare-workers';
// By path: test/tsconfig.json (shared, not ours to change) maps no @floodgate/cloudflare.
import { DurableObjectStore, FloodgateObject } from '../../../packages/cloudflare/src/index.ts';
import { byHeader, byIp, fixedWindow, rateLimiter } from '@floodgate/hono';
import type { Decision, LimitRule } from '@floodgate/hono';
import type { LimiterNamespace } from '../../../packages/cloudflare/src/index.ts';
import type { Context } from 'hono';

export { FloodgateObject };

interface Env {
  FLOODGATE: LimiterNamespace;
}

/** This isolate's clock, set by the tests (`POST /clock`): every limiter and its store read it. */
let now = 1_700_000_000_000;
const clock = () => now;

const ip = byIp();
const priority = (c: Context) => (c.req.header('x-priority') === 'critical' ? 'critical' : 'normal');

/** One limiter per route, each with its own rules. */
/** The request's cost: the `x-cost` header, else 1. */
const cost = (c: Context) => Number(c.req.header('x-cost') ?? 1);

const ROUTES: Record<string, { limits: LimitRule<Context>[]; priority?: typeof priority; cost?: typeof cost }> = {
  // An enforced rule and a stricter one in shadow mode, being tried out.
  shadow: {
    limits: [
      { name: 'ip', key: ip, algorithm: fixedWindow({ limit: 10, window: '1m' }) },
      { name: 'trial', key: ip, algorithm: fixedWindow({ limit: 2, window: '1m' }), shadow: true },
    ],
    cost,
  },
  // 2 a minute; a client that asks for a third is shut out for 5 minutes, doubling per repeat within the hour.
  login: {
    limits: [
      {
        name: 'login',
        key: ip,
        algorithm: fixedWindow({ limit: 2, window: '1m' }),
        blockDuration: '5m',
        escalate: { period: '1h', max: '20m' },
      },
    ],
  },
  // Two identities: each layer in an object of its own.
  pair: {
    limits: [
      { name: 'ip', key: ip, algorithm: fixedWindow({ limit: 10, window: '1m' }) },
      // The header stands for a signed-in user here (set by an authenticating proxy): one client's key.
      { name: 'user', key: byHeader('x-user'), scope: 'client', algorithm: fixedWindow({ limit: 10, window: '1m' }) },
    ],
  },
  // 5 a minute, 2 of them kept for requests the app calls critical.
  reserve: {
    limits: [{ name: 'ip', key: ip, algorithm: fixedWindow({ limit: 5, window: '1m', reserve: 2 }) }],
    priority,
  },
  // The same, and a client denied is shut out for 5 minutes.
  'reserve-penalty': {
    limits: [
      { name: 'ip', key: ip, algorithm: fixedWindow({ limit: 5, window: '1m', reserve: 2 }), blockDuration: '5m' },
    ],
    priority,
  },
};

const limiters = new Map<string, ReturnType<typeof rateLimiter>>();

/** The route's middleware, made on its first request (bindings come with requests) and kept. */
function limiterOf(c: Context<{ Bindings: Env }>): ReturnType<typeof rateLimiter> {
  const route = c.req.param('route') as string;
  let limiter = limiters.get(route);
  if (limiter === undefined) {
    const rules = ROUTES[route];
    if (rules === undefined) throw new Error(`no route ${route}`);
    limiter = rateLimiter({
      ...rules,
      prefix: route,
      store: new DurableObjectStore({ namespace: c.env.FLOODGATE, clock }),
      clock,
      getConnInfo,
      // Far above any stall of a busy machine: these tests are about the shared state, not the fallback.
      timeout: 10_000,
    });
    limiters.set(route, limiter);
  }
  return limiter;
}

const summary = (decision: Decision | undefined) =>
  decision === undefined
    ? null
    : {
        allowed: decision.allowed,
        limit: decision.limit,
        remaining: decision.remaining,
        retryAfter: decision.retryAfter,
        rule: decision.rule,
        shadowDenied: decision.shadowDenied,
        results: decision.results.map(({ rule, allowed, remaining, limit, shadow }) => ({
          rule,
          allowed,
          remaining,
          limit,
          shadow,
        })),
      };

const app = new Hono<{ Bindings: Env }>();
app.post('/clock', async (c) => {
  now = ((await c.req.json()) as { now: number }).now;
  return c.json({ now });
});
app.use('/limited/:route/*', (c, next) => limiterOf(c)(c, next));
app.get('/limited/:route/*', (c) => c.json(summary(c.get('rateLimit'))));
// The middleware's controls, for the calling client's keys: `?for=1m` is a block's duration.
app.post('/admin/:route/:op', async (c) => {
  const limiter = limiterOf(c);
  switch (c.req.param('op')) {
    case 'peek':
      return c.json(summary(await limiter.peek(c, { cost: Number(c.req.query('cost') ?? 1) })));
    case 'block':
      await limiter.block(c, c.req.query('for') as '1m');
      return c.json({ done: 'block' });
    case 'unblock':
      await limiter.unblock(c);
      return c.json({ done: 'unblock' });
    case 'reset':
      await limiter.reset(c);
      return c.json({ done: 'reset' });
    default:
      return c.json({ error: 'unknown control' }, 404);
  }
});

export default app;
