// Traffic patterns and how requests are sent. Browsers open at most six HTTP/1.1 connections per
// host, and the shaping and concurrency routes keep theirs busy, so when it can the page calls each
// algorithm on its own `<id>.localhost` host (browsers resolve *.localhost to this machine).

// The bursts around a window boundary: far enough from it that a busy browser still lands each
// on its own side, close enough that 2x the limit goes through within 1.5 s.
const BEFORE_BOUNDARY = 1000;
const AFTER_BOUNDARY = 500;
const LEAD = 500; // ms drawn before the first burst

/**
 * The send times of a pattern, in ms from the start of the run, and how long to draw.
 * `config` is /api/config's answer; `offset` is server clock minus page clock.
 */
export function schedule(pattern, { rate, seconds, burst }, config, offset) {
  if (pattern === 'steady') {
    const count = Math.max(1, Math.round(rate * seconds));
    return {
      delay: 0,
      sends: Array.from({ length: count }, (_, i) => Math.round((i * 1000) / rate)),
      span: seconds * 1000 + 5000,
    };
  }
  if (pattern === 'burst') return { delay: 0, sends: Array(burst).fill(0), span: 8000 };
  // One burst just before a boundary of the fixed window and another just after it.
  const windowMs = config.algorithms.find((a) => a.id === 'fixed-window').window;
  const serverNow = performance.now() + offset;
  let boundary = Math.ceil(serverNow / windowMs) * windowMs;
  if (boundary - serverNow < BEFORE_BOUNDARY + LEAD + 500) boundary += windowMs;
  const start = boundary - BEFORE_BOUNDARY - LEAD;
  const sends = [...Array(burst).fill(LEAD), ...Array(burst).fill(LEAD + BEFORE_BOUNDARY + AFTER_BOUNDARY)];
  return { delay: start - serverNow, sends, span: 8000 };
}

/** The server's clock minus `performance.now()`, halving the round trip of a config request. */
export async function fetchConfig() {
  const before = performance.now();
  const response = await fetch('/api/config', { cache: 'no-store' });
  const config = await response.json();
  const after = performance.now();
  return { config, offset: config.now - (before + after) / 2 };
}

/** The base URL per algorithm: its own *.localhost host if it answers, else this page's origin. */
export async function chooseHosts(algorithms) {
  const same = Object.fromEntries(algorithms.map((a) => [a.id, '']));
  if (!['127.0.0.1', 'localhost'].includes(location.hostname)) return { bases: same, spread: false };
  const port = location.port ? `:${location.port}` : '';
  const bases = Object.fromEntries(algorithms.map((a) => [a.id, `http://${a.id}.localhost${port}`]));
  try {
    const probes = algorithms.map((a) =>
      fetch(`${bases[a.id]}/api/config`, { cache: 'no-store', signal: AbortSignal.timeout(2000) }),
    );
    const answers = await Promise.all(probes);
    return answers.every((r) => r.ok) ? { bases, spread: true } : { bases: same, spread: false };
  } catch {
    return { bases: same, spread: false };
  }
}

/** Sends one request and reports what came back; never rejects. */
export async function send(url, sentAt, onDone) {
  const record = { sent: sentAt, answered: undefined, done: undefined, status: 0, delay: 0, headers: {} };
  try {
    const response = await fetch(url, { cache: 'no-store' });
    record.answered = performance.now();
    record.headers = pickHeaders(response.headers);
    record.status = response.status;
    const body = await response.json().catch(() => ({}));
    record.delay = body.delay ?? 0;
    record.degraded = body.degraded === true;
  } catch {
    record.status = 0;
  }
  record.done = performance.now();
  record.answered ??= record.done;
  onDone(record);
}

const SHOWN = ['RateLimit-Policy', 'RateLimit', 'Retry-After'];

function pickHeaders(headers) {
  return Object.fromEntries(SHOWN.filter((name) => headers.has(name)).map((name) => [name, headers.get(name)]));
}

/** A fresh id per run, so every run starts from empty limits. */
export function newClientId() {
  return crypto.randomUUID?.() ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}
