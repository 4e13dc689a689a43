import { Hono } from 'hono';
import { getConnInfo } from 'hono/cloudflare-workers';
// By path: test/tsconfig.json (shared, not ours to change) maps no @floodgate/cloudflare.
import { DurableObjectStore, FloodgateObject } from '../../../packages/cloudflare/src/index.ts';
import { byHeader, byIp, rateLimiter, slidingLog } from '@floodgate/hono';
import { storeRoute } from './store-route.ts';
import type { FloodgateWarning, LimitRule } from '@floodgate/hono';
import type { LimiterNamespace, LimiterObjectState } from '../../../packages/cloudflare/src/index.ts';
import type { Context, MiddlewareHandler } from 'hono';

/** Set per Worker by the test as the CONFIG binding (JSON). */
interface Config {
  limit: number;
  /** Adds a second layer keyed by the x-user header, with this limit. */
  userLimit?: number;
  shards?: number;
  timeout?: number;
  instances?: number;
  /** The breaker's first wait, ms (default 1 s): long, for tests that count the calls an open breaker lets through. */
  probeInterval?: number;
}

interface Env {
  FLOODGATE: LimiterNamespace;
  CONFIG: string;
  FAULT?: string;
}

export { FloodgateObject };

/**
 * FloodgateObject as the tests break it, through the FAULT binding: `throw` fails every call,
 * `hang` answers none for two minutes (far past any deadline the tests set). `GET /rows` shows what
 * the object has in storage, for the sweep test.
 */
type SqlState = LimiterObjectState & { storage: { sql: { exec(query: string): { toArray(): unknown[] } } } };

export class TestObject extends FloodgateObject {
  readonly #ctx: SqlState;
  readonly #fault: string;

  constructor(ctx: LimiterObjectState, env: Env) {
    super(ctx, env);
    this.#ctx = ctx as SqlState;
    this.#fault = env.FAULT ?? 'none';
  }

  override async fetch(request: Request): Promise<Response> {
    if (this.#fault === 'throw') throw new Error('injected: the object failed');
    if (this.#fault === 'hang') await new Promise((resolve) => setTimeout(resolve, 120_000));
    if (new URL(request.url).pathname === '/rows') return Response.json(await this.#rows());
    return super.fetch(request);
  }

  async #rows(): Promise<{ rows: number; alarm: number | null }> {
    let rows = 0;
    try {
      rows = (this.#ctx.storage.sql.exec('SELECT key FROM floodgate_entries').toArray() as unknown[]).length;
    } catch {
      // No table: the storage was wiped.
    }
    return { rows, alarm: await this.#ctx.storage.getAlarm() };
  }
}

const events = { storeErrors: 0, breaker: [] as string[], warnings: [] as FloodgateWarning[] };

function rules(config: Config): LimitRule<Context>[] {
  const ip: LimitRule<Context> = {
    name: 'ip',
    key: byIp(),
    algorithm: slidingLog({ limit: config.limit, window: '1h' }),
  };
  if (config.userLimit === undefined) return [ip];
  return [
    ip,
    { name: 'user', key: byHeader('x-user'), algorithm: slidingLog({ limit: config.userLimit, window: '1h' }) },
  ];
}

/**
 * env is only known once a request comes: the limiters are made on the first one, then kept for
 * the isolate's life (as the README shows). `/uncached/*` counts on the same keys without the
 * local deny cache, to read the shared counts as they are.
 */
const limiters = new Map<string, MiddlewareHandler>();
const limit =
  (route: string): MiddlewareHandler<{ Bindings: Env }> =>
  (c, next) => {
    let limiter = limiters.get(route);
    if (limiter === undefined) {
      const config = JSON.parse(c.env.CONFIG) as Config;
      limiter = rateLimiter({
        store: storeOf(c.env, config),
        limits: rules(config),
        getConnInfo,
        timeout: config.timeout ?? 100,
        instances: config.instances ?? 1,
        ...(config.probeInterval === undefined ? {} : { breaker: { probeInterval: config.probeInterval } }),
        denyCache: route === 'limited',
        onStoreError: () => {
          events.storeErrors++;
        },
        onBreakerChange: (change) => {
          events.breaker.push(change.to);
        },
      });
      limiters.set(route, limiter);
    }
    return limiter(c, next);
  };

function storeOf(env: Env, config: Config, clock?: () => number): DurableObjectStore {
  return new DurableObjectStore({
    namespace: env.FLOODGATE,
    onWarning: (warning) => {
      events.warnings.push(warning);
    },
    ...(config.shards === undefined ? {} : { shards: config.shards }),
    ...(clock === undefined ? {} : { clock }),
  });
}

const app = new Hono<{ Bindings: Env }>();
app.use('/limited/*', limit('limited'));
app.use('/uncached/*', limit('uncached'));
app.get('/limited/*', (c) => c.json(c.get('rateLimit')));
app.get('/uncached/*', (c) => c.json(c.get('rateLimit')));
app.get('/events', (c) => c.json(events));
app.get('/rows/:name', (c) => {
  const namespace = c.env.FLOODGATE;
  return namespace.get(namespace.idFromName(c.req.param('name')) as never).fetch(new Request('https://object/rows'));
});
// One object, called with a request as DurableObjectStore would send it.
app.post('/object/:name', async (c) => {
  const namespace = c.env.FLOODGATE;
  const stub = namespace.get(namespace.idFromName(c.req.param('name')) as never);
  return stub.fetch(new Request('https://object/', { method: 'POST', body: await c.req.text() }));
});
// The store itself, called from inside a Worker: any operation on some layers.
app.post(
  '/store',
  storeRoute((c, clock) => storeOf(c.env as Env, JSON.parse((c.env as Env).CONFIG) as Config, clock)),
);

export default app;
