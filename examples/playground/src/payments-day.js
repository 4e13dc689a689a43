import { rateLimit, tokenBucket } from '@floodgate/express';

const CLIENT_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * The payments day, scaled down to the playground's pace (examples/payments-gateway has the real
 * numbers): merchants on two tiers, and one ceiling in front of the card processor that keeps a
 * quarter for captures and refunds.
 */
export const paymentsDay = {
  tiers: {
    starter: { capacity: 4, refillRate: 0.5 },
    growth: { capacity: 8, refillRate: 1 },
    enterprise: { capacity: 20, refillRate: 2 },
  },
  merchants: {
    'corner-cafe': { title: 'Corner Café', tier: 'starter' },
    'bike-shop': { title: 'Bike Shop', tier: 'growth' },
    megamart: { title: 'Megamart', tier: 'enterprise' },
  },
  processor: { capacity: 24, refillRate: 1, reserve: 6 },
};

const tiers = Object.fromEntries(
  Object.entries(paymentsDay.tiers).map(([name, options]) => [name, tokenBucket(options)]),
);
const processor = tokenBucket(paymentsDay.processor);

/**
 * The payments day's routes: charges (normal), captures and refunds (critical), and its numbers at
 * /api/payments/config. Each run of the page sends a fresh `?client=` id, so each run has its own
 * merchants' buckets and its own processor ceiling.
 *
 * @param {import('express').Express} app
 * @param {{
 *   store?: import('@floodgate/express').Store,
 *   clock?: () => number,
 *   onDecision?: (event: import('@floodgate/core').DecisionEvent) => void,
 * }} options
 */
export function addPaymentsDay(app, { store, clock, onDecision }) {
  const limiter = rateLimit({
    store,
    clock,
    onDecision,
    failMode: 'local',
    prefix: 'playground.payments',
    limits: [
      {
        name: 'merchant',
        key: (ctx) => `${ctx.req.query.client}:${ctx.req.query.merchant}`,
        algorithm: (req) => tiers[paymentsDay.merchants[req.query.merchant]?.tier] ?? tiers.starter,
      },
      {
        name: 'processor',
        key: (ctx) => ctx.req.query.client,
        algorithm: processor,
        priority: (req) => req.payment,
      },
    ],
  });
  app.get('/api/payments/config', (_req, res) => res.json(paymentsDay));
  app.post('/api/payments/charges', payment('normal'), limiter, answer);
  app.post('/api/payments/captures', payment('critical'), limiter, answer);
  app.post('/api/payments/refunds', payment('critical'), limiter, answer);
}

/** Checks the run id and merchant before the limiter sees them, and sets the route's priority. */
function payment(priority) {
  return function payment(req, res, next) {
    const { client, merchant } = req.query;
    if (typeof client !== 'string' || !CLIENT_ID.test(client) || !Object.hasOwn(paymentsDay.merchants, merchant)) {
      res.status(400).json({ error: 'give ?client=<run id>&merchant=<one of /api/payments/config>' });
      return;
    }
    req.payment = priority;
    next();
  };
}

function answer(req, res) {
  res.json({ admitted: true, degraded: req.rateLimit?.degraded === true });
}
