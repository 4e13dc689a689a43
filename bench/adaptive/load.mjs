// Open-loop load: `rate` requests a second, sent evenly whatever the answers (users do not wait
// for the server to be ready), each given up after `timeoutMs` (a client's timeout).
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 4000 });

/** One request: resolves to { sentAt, status (0: timed out or failed), ms }. */
function once(port, timeoutMs) {
  const sentAt = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (status) => {
      if (settled) return;
      settled = true;
      resolve({ sentAt, status, ms: performance.now() - sentAt });
    };
    const req = http.get({ host: '127.0.0.1', port, path: '/work', agent }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode));
      res.on('error', () => done(0));
    });
    req.setTimeout(timeoutMs, () => {
      done(0);
      req.destroy();
    });
    req.on('error', () => done(0));
  });
}

/** Sends at `rate` for `ms`; resolves with every result once the last has settled. */
export async function drive(port, { rate, ms, timeoutMs }) {
  const started = performance.now();
  const pending = [];
  let sent = 0;
  await new Promise((resolve) => {
    const tick = () => {
      const elapsed = performance.now() - started;
      const due = Math.min(Math.floor((elapsed * rate) / 1000), Math.floor((ms * rate) / 1000));
      while (sent < due) {
        pending.push(once(port, timeoutMs));
        sent++;
      }
      if (elapsed >= ms) resolve();
      else setTimeout(tick, 2);
    };
    tick();
  });
  const results = await Promise.all(pending);
  return results.map((r) => ({ ...r, at: r.sentAt - started }));
}

export function closeAgent() {
  agent.destroy();
}
