// The load driver's own process (spawned by load.ts), so that sending and timing requests does not
// compete with the app under test for its event loop. Input: one JSON argument; output: one JSON
// array of samples on stdout.
import { Agent, request } from 'node:http';

const options = JSON.parse(process.argv[2]);
const names = Array.isArray(options.clients)
  ? options.clients
  : Array.from({ length: options.clients ?? 20 }, (_, i) => `c${i}`);
const clientOf = (id) => (options.uniquePrefix ? `${options.uniquePrefix}${id}` : names[id % names.length]);
const REQUEST_TIMEOUT_MS = 15_000;
const agent = new Agent({ keepAlive: true, maxSockets: options.sockets ?? 64 });

function send(id) {
  return new Promise((resolve) => {
    const sentAt = performance.now();
    let settled = false;
    const finish = (status, retryAfter, error) => {
      if (settled) return;
      settled = true;
      resolve({ id, latency: performance.now() - sentAt, status, retryAfter, ...(error ? { error } : {}) });
    };
    const headers = { 'x-request': String(id), 'x-client': clientOf(id) };
    const req = request(options.url, { agent, headers }, (res) => {
      res.resume();
      res.once('end', () => finish(res.statusCode ?? 0, res.headers['retry-after']));
      res.once('error', (error) => finish(0, undefined, String(error)));
    });
    // Long enough that a busy machine is not taken for a hang; a request that hangs still ends the
    // run, answered with status 0.
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`load driver timeout (${REQUEST_TIMEOUT_MS} ms)`)));
    req.once('error', (error) => finish(0, undefined, String(error)));
    req.end();
  });
}

const pending = [];
const started = performance.now();
let sent = 0;
while (performance.now() - started < options.durationMs) {
  const due = Math.floor(((performance.now() - started) * options.rate) / 1000) + 1;
  while (sent < due) pending.push(send(sent++));
  await new Promise((resolve) => setTimeout(resolve, 4));
}
const samples = await Promise.all(pending);
agent.destroy();
process.stdout.write(JSON.stringify(samples));
