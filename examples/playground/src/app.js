import { fileURLToPath } from 'node:url';
import express from 'express';
import { rateLimit } from '@floodgate/express';
import { algorithms } from './algorithms.js';
import { addAdaptive } from './adaptive.js';
import { addPaymentsDay } from './payments-day.js';

const publicDir = fileURLToPath(new URL('../public', import.meta.url));
const CLIENT_ID = /^[A-Za-z0-9-]{1,64}$/;
// The page may call each route on its own `<id>.localhost` host (see public/traffic.js), so the
// API answers loopback origins and lets them read the rate-limit headers.
const LOOPBACK_ORIGIN = /^http:\/\/(127\.0\.0\.1|localhost|[a-z0-9-]+\.localhost)(:\d+)?$/;
const EXPOSED = 'RateLimit, RateLimit-Policy, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';

/**
 * The playground app: one rate-limited route per algorithm under /api, the configuration at
 * /api/config, the payments day under /api/payments (src/payments-day.js) and the page from
 * public/. `store` is shared by every route (each has its own prefix); `clock` and `onDecision` are
 * for tests; `hold` is how long the concurrency route keeps a request open.
 *
 * @param {{
 *   store?: import('@floodgate/express').Store,
 *   storeName?: string,
 *   clock?: () => number,
 *   hold?: number,
 *   onDecision?: (event: import('@floodgate/core').DecisionEvent) => void,
 * }} [options]
 */
export function createPlayground({ store, storeName = 'memory', clock, hold = 1000, onDecision } = {}) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use('/api', allowLoopbackOrigins);

  app.get('/api/config', (_req, res) => {
    res.json({ now: (clock ?? Date.now)(), store: storeName, hold, algorithms: algorithms.map(describe) });
  });

  for (const algorithm of algorithms) {
    const limiter = rateLimit({
      store,
      clock,
      onDecision,
      // If Redis goes away, decide from a local memory store instead of failing (the default).
      failMode: 'local',
      prefix: `playground.${algorithm.id}`,
      limits: [{ name: algorithm.id, key: clientKey, algorithm: algorithm.create(algorithm.options) }],
    });
    const handler = algorithm.id === 'concurrency' ? holdOpen(hold) : answer;
    app.get(`/api/${algorithm.id}`, limiter, handler);
  }

  addPaymentsDay(app, { store, clock, onDecision });
  addAdaptive(app);
  app.use(express.static(publicDir));
  return app;
}

/** Each run of the page sends a fresh `?client=` id, so runs start from empty limits; curl falls back to its IP. */
function clientKey(ctx) {
  const client = ctx.req.query.client;
  return typeof client === 'string' && CLIENT_ID.test(client) ? client : ctx.ip;
}

function answer(req, res) {
  res.json(admitted(req));
}

/** Sends the headers at once (the request is admitted) but keeps the slot busy for `hold` ms. */
function holdOpen(hold) {
  return function holdOpen(req, res) {
    const body = admitted(req);
    res.status(200).type('json');
    res.flushHeaders();
    const timer = setTimeout(() => res.end(JSON.stringify(body)), hold);
    res.once('close', () => clearTimeout(timer));
  };
}

function admitted(req) {
  const { delay, remaining, degraded } = req.rateLimit ?? {};
  return { admitted: true, delay, remaining, degraded };
}

function describe({ id, title, options, note, create }) {
  const { kind, limit, window } = create(options);
  return { id, title, route: `/api/${id}`, kind, options, limit, window, note };
}

function allowLoopbackOrigins(req, res, next) {
  const origin = req.headers.origin;
  if (origin !== undefined && LOOPBACK_ORIGIN.test(origin)) {
    res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED, Vary: 'Origin' });
  }
  next();
}
