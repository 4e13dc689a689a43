// The exactness check: two instances of one Floodgate Redis contender (two processes, one RedisStore
// prefix, no proxy in front), hit concurrently over a few keys; no key may be admitted more than its limit.
// With failMode 'closed': the default ('local') admits from a local fallback when Redis does not answer
// within the deadline, which a stalled machine can cause; that is the fallback's documented trade,
// not a race between instances, and here it would be indistinguishable from one. Such requests get 503.
import { EXACTNESS, FLOODGATE } from './config.mjs';
import { startServer } from './processes.mjs';

/** Requests `EXACTNESS.requests` over EXACTNESS.keys keys, alternating between the two ports. */
async function fire(ports) {
  const admitted = new Map();
  const statuses = {};
  let next = 0;
  const worker = async () => {
    while (next < EXACTNESS.requests) {
      const i = next++;
      const key = `exact-${i % EXACTNESS.keys}`;
      const response = await fetch(`http://127.0.0.1:${ports[i % ports.length]}/`, { headers: { 'x-api-key': key } });
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.ok) admitted.set(key, (admitted.get(key) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: EXACTNESS.inflight }, worker));
  return { admitted, statuses };
}

/** Runs the check for one contender; `redis.admin` is flushed first. */
export async function exactness(name, redis) {
  await redis.admin.flushall();
  const env = {
    BENCH_LIMIT: String(EXACTNESS.limit),
    BENCH_WINDOW_MS: String(EXACTNESS.windowMs),
    BENCH_REDIS_PORT: String(redis.port),
    BENCH_FAIL_MODE: 'closed',
  };
  const servers = [];
  try {
    servers.push(await startServer(name, env), await startServer(name, env));
    const { admitted, statuses } = await fire(servers.map((server) => server.port));
    let over = 0;
    let under = 0;
    for (let k = 0; k < EXACTNESS.keys; k++) {
      const count = admitted.get(`exact-${k}`) ?? 0;
      over += Math.max(0, count - EXACTNESS.limit);
      if (count < EXACTNESS.limit) under++;
    }
    const total = [...admitted.values()].reduce((sum, n) => sum + n, 0);
    const other = Object.entries(statuses).filter(([status]) => status !== '200' && status !== '429');
    return { name, prefix: FLOODGATE.redisPrefix, total, over, under, statuses, ok: over === 0 && other.length === 0 };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}
