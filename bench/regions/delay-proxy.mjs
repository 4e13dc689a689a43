// A TCP proxy on a free loopback port in front of one redis-server: every chunk waits `delayMs` in
// each direction (order kept), as a cross-region link would; cut() destroys the open connections
// and leaves new ones unanswered (a partition) until heal().
import { connect, createServer } from 'node:net';

/** Delivers chunks to `to` in order, each no earlier than `delayMs` after it arrived. */
function delayLine(to, delayMs) {
  const queue = [];
  let timer;
  const pump = () => {
    timer = undefined;
    const now = performance.now();
    // A chunk due for a socket already destroyed is dropped (left in the queue, it spun this loop forever).
    while (queue.length > 0 && queue[0].due <= now) {
      const { chunk } = queue.shift();
      if (!to.destroyed) to.write(chunk);
    }
    if (queue.length > 0) timer = setTimeout(pump, Math.max(1, queue[0].due - now));
  };
  return {
    push(chunk) {
      if (delayMs === 0 && queue.length === 0) {
        if (!to.destroyed) to.write(chunk);
        return;
      }
      queue.push({ due: performance.now() + delayMs, chunk });
      timer ??= setTimeout(pump, delayMs);
    },
    clear() {
      clearTimeout(timer);
      queue.length = 0;
    },
  };
}

export async function startDelayProxy(upstreamPort, delayMs) {
  const sockets = new Set();
  let cut = false;
  const track = (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  };
  const server = createServer((client) => {
    track(client);
    if (cut) return; // accepted, never answered
    const upstream = connect(upstreamPort, '127.0.0.1');
    track(upstream);
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    const up = delayLine(upstream, delayMs);
    const down = delayLine(client, delayMs);
    client.on('data', (chunk) => up.push(chunk));
    upstream.on('data', (chunk) => down.push(chunk));
    const end = () => {
      up.clear();
      down.clear();
      client.destroy();
      upstream.destroy();
    };
    client.once('close', end);
    upstream.once('close', end);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const destroyAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: server.address().port,
    cut() {
      cut = true;
      destroyAll();
    },
    heal() {
      cut = false;
      destroyAll();
    },
    close: () =>
      new Promise((resolve) => {
        destroyAll();
        server.close(() => resolve());
      }),
  };
}
