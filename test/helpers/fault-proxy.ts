import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/**
 * `pass`: bytes flow both ways. `latency`: every chunk waits the delay of its direction (order
 * kept; `latency(ms)` sets both, `delay(up, down)` each). `blackhole`: connections are accepted, bytes are read and discarded, nothing is answered.
 * `dropReplyOnce`: requests reach Redis, the next reply is swallowed, the client socket is reset
 * (RST) and the mode goes back to `pass`.
 */
export type FaultMode = 'pass' | 'latency' | 'blackhole' | 'dropReplyOnce';

/** An in-process TCP proxy on a free loopback port in front of one redis-server (reliability.md A6, A12). */
export interface FaultProxy {
  readonly host: string;
  readonly port: number;
  readonly mode: FaultMode;
  /** Client and upstream sockets open now (0 after close()). */
  readonly openSockets: number;
  pass(): void;
  /** Delays each chunk by `ms` in each direction; chunks already delayed keep their time. */
  latency(ms: number): void;
  /** Delays chunks to the server by `upMs` and chunks back to the client by `downMs` (a cross-region link). */
  delay(upMs: number, downMs: number): void;
  blackhole(): void;
  /**
   * A partition: every open connection is destroyed (its commands fail at once, never answered
   * later out of order) and new ones are accepted but hear nothing, until heal().
   */
  cut(): void;
  /** Ends a cut: the link delays as before it; connections accepted during the cut are destroyed so clients reconnect. */
  heal(): void;
  /** Switches to `dropReplyOnce`; resolves once a reply has been swallowed and its client reset. */
  dropReplyOnce(): Promise<void>;
  /** Resolves once no delayed chunk waits in any direction (at once if none does). */
  idle(): Promise<void>;
  /** Destroys every socket the proxy opened or accepted, stops listening, clears its timers. */
  close(): Promise<void>;
}

/** Delivers chunks to `to` in arrival order, each no earlier than its due time. */
class DelayLine {
  readonly #queue: { due: number; chunk: Buffer }[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly to: Socket,
    private readonly onDrained: () => void,
  ) {}

  get waiting(): number {
    return this.#queue.length;
  }

  push(chunk: Buffer, delayMs: number): void {
    if (delayMs <= 0 && this.#queue.length === 0) {
      this.#write(chunk);
      return;
    }
    this.#queue.push({ due: performance.now() + delayMs, chunk });
    this.#timer ??= setTimeout(() => this.#pump(), delayMs);
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#queue.length = 0;
    this.onDrained();
  }

  #pump(): void {
    this.#timer = undefined;
    const now = performance.now();
    while (this.#queue.length > 0 && (this.#queue[0]?.due ?? 0) <= now) {
      this.#write((this.#queue.shift() as { chunk: Buffer }).chunk);
    }
    const next = this.#queue[0];
    if (next) this.#timer = setTimeout(() => this.#pump(), Math.max(1, next.due - now));
    else this.onDrained();
  }

  #write(chunk: Buffer): void {
    if (!this.to.destroyed) this.to.write(chunk);
  }
}

/** What every connection of one proxy shares. */
interface ProxyState {
  mode: FaultMode;
  upMs: number;
  downMs: number;
  readonly sockets: Set<Socket>;
  readonly lines: Set<DelayLine>;
  readonly idleWaiters: (() => void)[];
  readonly dropWaiters: (() => void)[];
}

function wakeIfIdle(state: ProxyState): void {
  if ([...state.lines].every((line) => line.waiting === 0)) for (const wake of state.idleWaiters.splice(0)) wake();
}

function track(state: ProxyState, socket: Socket): void {
  state.sockets.add(socket);
  socket.once('close', () => state.sockets.delete(socket));
  // Resets and refusals are the point of this proxy; the ends see them as close events.
  socket.on('error', () => {});
}

/** Relays one accepted client to a fresh upstream connection, applying the current mode to each chunk. */
function relay(state: ProxyState, client: Socket, upstreamPort: number, host: string): void {
  const upstream = connect(upstreamPort, host);
  track(state, client);
  track(state, upstream);
  const up = new DelayLine(upstream, () => wakeIfIdle(state));
  const down = new DelayLine(client, () => wakeIfIdle(state));
  state.lines.add(up).add(down);
  client.on('data', (chunk: Buffer) => {
    if (state.mode !== 'blackhole') up.push(chunk, state.mode === 'latency' ? state.upMs : 0);
  });
  upstream.on('data', (chunk: Buffer) => {
    if (state.mode === 'blackhole') return;
    if (state.mode !== 'dropReplyOnce') return down.push(chunk, state.mode === 'latency' ? state.downMs : 0);
    state.mode = 'pass';
    client.resetAndDestroy();
    upstream.destroy();
    for (const wake of state.dropWaiters.splice(0)) wake();
  });
  const end = () => {
    client.destroy();
    upstream.destroy();
    state.lines.delete(up);
    state.lines.delete(down);
    up.clear();
    down.clear();
  };
  client.once('close', end);
  upstream.once('close', end);
}

/** Destroys every socket and resolves once all of them have closed. */
function destroyAll(sockets: Set<Socket>): Promise<unknown> {
  return Promise.all(
    [...sockets].map((socket) => {
      const gone = new Promise((resolve) => socket.once('close', resolve));
      socket.destroy();
      return gone;
    }),
  );
}

/** Starts a proxy to `upstreamPort` on loopback, in `pass` mode. */
export async function startFaultProxy(upstreamPort: number, host = '127.0.0.1'): Promise<FaultProxy> {
  const state: ProxyState = {
    mode: 'pass',
    upMs: 0,
    downMs: 0,
    sockets: new Set(),
    lines: new Set(),
    idleWaiters: [],
    dropWaiters: [],
  };
  const server = createServer((client) => relay(state, client, upstreamPort, host));
  server.listen(0, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const setMode = (mode: FaultMode, upMs = 0, downMs = upMs) => {
    state.mode = mode;
    state.upMs = upMs;
    state.downMs = downMs;
  };
  // The mode and delays a cut interrupts, for heal().
  let beforeCut: { mode: FaultMode; upMs: number; downMs: number } | undefined;
  return {
    host,
    port: (server.address() as AddressInfo).port,
    get mode() {
      return state.mode;
    },
    get openSockets() {
      return state.sockets.size;
    },
    pass: () => setMode('pass'),
    latency: (ms) => setMode('latency', ms),
    delay: (upMs, downMs) => setMode('latency', upMs, downMs),
    blackhole: () => setMode('blackhole'),
    cut: () => {
      beforeCut ??= { mode: state.mode, upMs: state.upMs, downMs: state.downMs };
      setMode('blackhole');
      for (const socket of state.sockets) socket.destroy();
    },
    heal: () => {
      const before = beforeCut ?? { mode: 'pass' as const, upMs: 0, downMs: 0 };
      beforeCut = undefined;
      for (const socket of state.sockets) socket.destroy();
      setMode(before.mode, before.upMs, before.downMs);
    },
    dropReplyOnce: () => {
      setMode('dropReplyOnce');
      return new Promise((resolve) => state.dropWaiters.push(resolve));
    },
    idle: () => {
      const waiting = new Promise<void>((resolve) => state.idleWaiters.push(resolve));
      wakeIfIdle(state);
      return waiting;
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await destroyAll(state.sockets);
      await closed;
    },
  };
}
