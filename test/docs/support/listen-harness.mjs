// Preloaded (node --import) into a README snippet that the docs suite runs. Whatever port the
// snippet listens on, the server gets a free loopback port instead; once it listens, GET / is
// sent until the first 429 (or PROBE_MAX requests), or the requests of PROBE_STEPS (a JSON list of
// { method, path, headers }) are sent in order; what came back is printed on one line, and the
// process exits. Connections to port 6379 are refused: that Redis is not ours.
// A snippet that starts no server is done once its module has run (a client it opened may keep
// the process alive): see run.ts.
import net from 'node:net';

const listen = net.Server.prototype.listen;
const connect = net.Socket.prototype.connect;
let probing = false;

net.Socket.prototype.connect = function guardedConnect(...args) {
  // net.connect() hands over its arguments already normalized, as one array.
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first };
  if (Number(options.port ?? 6379) === 6379 && options.path === undefined) {
    throw new Error('the docs harness refuses connections to port 6379');
  }
  return connect.apply(this, args);
};

net.Server.prototype.listen = function freePortListen(...args) {
  const callback = typeof args.at(-1) === 'function' ? args.at(-1) : undefined;
  this.once('listening', () => {
    if (probing) return;
    probing = true;
    globalThis.floodgateHarnessProbing = true;
    probe(this.address().port).then(
      (result) => {
        process.stdout.write(`\n@@probe ${JSON.stringify(result)}\n`);
        process.exit(0);
      },
      (error) => {
        process.stderr.write(`probe failed: ${error.stack}\n`);
        process.exit(1);
      },
    );
  });
  return callback === undefined ? listen.call(this, 0, '127.0.0.1') : listen.call(this, 0, '127.0.0.1', callback);
};

/**
 * Fixed and sliding windows are aligned to the epoch: a count the probe checks starts again (or
 * a sliding estimate lets more through) when one ends among its requests. PROBE_WINDOWS (window
 * lengths in ms, comma-separated) makes the probe wait, when needed, until each of them has at
 * least PROBE_MARGIN ms (default 5000), and at least a quarter of it, left.
 */
async function clearOfWindowEdges() {
  const windows = (process.env.PROBE_WINDOWS ?? '').split(',').filter(Boolean).map(Number);
  const margin = Number(process.env.PROBE_MARGIN ?? 5000);
  // Past a few rounds the windows' edges are too dense for any wait to help.
  for (let round = 0; round < 3; round++) {
    const now = Date.now();
    const lefts = windows.map((window) => window - (now % window));
    const wait = Math.max(0, ...lefts.filter((left, i) => left < Math.min(margin, windows[i] / 4)));
    if (wait === 0) return;
    await new Promise((resolve) => setTimeout(resolve, wait + 1));
  }
}

async function probe(port) {
  await clearOfWindowEdges();
  if (process.env.PROBE_STEPS !== undefined)
    return { statuses: [], steps: await send(port, JSON.parse(process.env.PROBE_STEPS)) };
  const statuses = [];
  const max = Number(process.env.PROBE_MAX ?? 400);
  for (let i = 0; i < max; i++) {
    const response = await fetch(`http://127.0.0.1:${port}/`);
    statuses.push(response.status);
    const body = await response.text();
    if (response.status === 429) return { statuses, denied: { headers: Object.fromEntries(response.headers), body } };
  }
  return { statuses };
}

async function send(port, steps) {
  const answers = [];
  for (const { method = 'GET', path, headers = {} } of steps) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers });
    answers.push({
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: await response.text(),
    });
  }
  return answers;
}
