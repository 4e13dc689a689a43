import http from 'node:http';
import { adaptiveConcurrency, rateLimit } from '@floodgate/express';

/** The fake dependency and the load the page starts: 4 workers, so 80 calls a second at 50 ms. */
export const adaptiveDemo = {
  workers: 4,
  serviceMs: 50,
  minServiceMs: 10,
  maxServiceMs: 400,
  rate: 60,
  maxRunMs: 120_000,
};

const PERIOD_MS = 250;
const POINTS = 240;

/**
 * The adaptive concurrency card's routes: `/api/adaptive/work` behind adaptiveConcurrency(), which
 * waits on a dependency of a few workers; `POST /api/adaptive/service?ms=` sets how long each call
 * takes (the page's slider); `POST /api/adaptive/load?on=true|false` starts or stops a load of
 * `rate` requests a second, sent by this process over HTTP to its own route; `/api/adaptive/state`
 * answers the last minute of limit, in-flight count and latency, four points a second.
 *
 * @param {import('express').Express} app
 */
export function addAdaptive(app) {
  const dependency = workerPool(adaptiveDemo.workers);
  dependency.serviceMs = adaptiveDemo.serviceMs;
  const layer = adaptiveConcurrency({ probeInterval: '20s' });
  const limiter = rateLimit({ limits: [layer], prefix: 'playground.adaptive', legacyHeaders: false });
  const load = loadLoop(layer, dependency);

  app.get('/api/adaptive/work', limiter, async (_req, res) => {
    await dependency.call();
    res.json({ admitted: true });
  });
  app.get('/api/adaptive/state', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ ...adaptiveDemo, ...load.state(), serviceMs: dependency.serviceMs });
  });
  app.post('/api/adaptive/service', (req, res) => {
    const ms = Number(req.query.ms);
    if (!Number.isInteger(ms) || ms < adaptiveDemo.minServiceMs || ms > adaptiveDemo.maxServiceMs) {
      res
        .status(400)
        .json({ error: `give ?ms= a whole number from ${adaptiveDemo.minServiceMs} to ${adaptiveDemo.maxServiceMs}` });
      return;
    }
    dependency.serviceMs = ms;
    res.json({ serviceMs: ms });
  });
  app.post('/api/adaptive/load', (req, res) => {
    if (req.query.on === 'true') load.start(req.socket.localPort);
    else load.stop();
    res.json({ running: load.state().running });
  });
}

/** `workers` calls at once, `serviceMs` each; the rest wait their turn, so latency grows with the queue. */
function workerPool(workers) {
  const queue = [];
  let busy = 0;
  const pool = {
    serviceMs: 50,
    call: () =>
      new Promise((resolve) => {
        if (busy < workers) run(resolve);
        else queue.push(resolve);
      }),
  };
  const run = (resolve) => {
    busy++;
    setTimeout(() => {
      busy--;
      resolve();
      const next = queue.shift();
      if (next !== undefined) run(next);
    }, pool.serviceMs);
  };
  return pool;
}

/** Sends `rate` requests a second to the work route and keeps a point per period of what happened. */
function loadLoop(layer, dependency) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const points = [];
  let timers;
  let startedAt = 0;
  let period = { latencies: [], shed: 0 };

  const send = (port) => {
    const sent = performance.now();
    const req = http.get({ host: '127.0.0.1', port, path: '/api/adaptive/work', agent }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) period.latencies.push(performance.now() - sent);
        else period.shed++;
      });
    });
    req.on('error', () => {});
  };

  const sample = () => {
    const { limit, inFlight, rtt } = layer.snapshot();
    const sorted = period.latencies.sort((a, b) => a - b);
    const at = (q) =>
      sorted.length === 0 ? null : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
    points.push({
      t: Math.round(performance.now() - startedAt) / 1000,
      limit,
      inFlight,
      baseline: Math.round(rtt.baseline),
      p50: at(0.5),
      p99: at(0.99),
      admitted: sorted.length,
      shed: period.shed,
      serviceMs: dependency.serviceMs,
    });
    if (points.length > POINTS) points.shift();
    period = { latencies: [], shed: 0 };
  };

  const stop = () => {
    if (timers === undefined) return;
    for (const timer of timers) clearInterval(timer);
    timers = undefined;
  };

  return {
    start(port) {
      if (timers !== undefined) return;
      points.length = 0;
      startedAt = performance.now();
      const perTick = adaptiveDemo.rate / 20;
      let owed = 0;
      timers = [
        setInterval(() => {
          owed += perTick;
          for (; owed >= 1; owed--) send(port);
        }, 50),
        setInterval(sample, PERIOD_MS),
        // A tab left open does not load the machine for ever.
        setTimeout(stop, adaptiveDemo.maxRunMs),
      ];
      for (const timer of timers) timer.unref();
    },
    stop,
    state: () => ({ running: timers !== undefined, points }),
  };
}
