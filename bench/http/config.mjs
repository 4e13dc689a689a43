// What `pnpm bench:http` measures, in one place: the load, the scenarios, the Redis client settings,
// the Floodgate contenders (a matrix of adapter × variant) and the peers, grouped by framework.
// server.mjs builds each contender from these names; run.mjs runs them in this order.

/**
 * The load wrk puts on each contender: `wrk -t2 -c50`, a 1 s warm-up, then `seconds` slices of
 * SLICE_SECONDS, each paired with a slice of the bare framework.
 */
export const LOAD = {
  threads: 2,
  connections: 50,
  seconds: positiveNumber('BENCH_DURATION', 4),
  warmupSeconds: 1,
  /** Allowed scenario: every request carries one of this many `x-api-key` values, drawn at random. */
  keys: 10_000,
};

/** wrk counts its duration in whole seconds. */
export const SLICE_SECONDS = 1;

/** The per-key limit and window of every limiter, per scenario; `expect` is what every response must be. */
export const SCENARIOS = {
  allowed: { label: 'allowed, 10,000 keys', keys: 'spread', limit: 1e9, windowMs: 60_000, expect: 'allowed' },
  hot: { label: 'allowed, one hot key', keys: 'hot', limit: 1e9, windowMs: 60_000, expect: 'allowed' },
  // An hour, so that no window (Floodgate's are epoch-aligned, the peers' start at the first hit)
  // ends while the key is being hammered; run.mjs also waits out a boundary that would fall inside.
  denied: { label: 'denied (every request 429)', keys: 'denied', limit: 1, windowMs: 3_600_000, expect: 'denied' },
};

/** The `x-api-key` values of the hot and denied scenarios. */
export const HOT_KEY = 'hot-key';
export const DENIED_KEY = 'denied-key';

/**
 * ioredis settings of every Redis contender, Floodgate and peers alike (one client per process,
 * connected before the server listens): packages/redis/README.md's recommendation.
 */
export const REDIS_CLIENT = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: 100,
  connectTimeout: 1000,
  reconnectOnError: null,
};

/**
 * The Floodgate contenders: every adapter × every variant, named `floodgate-<adapter>-<variant>`.
 * One layer is one fixedWindow rule keyed by the `x-api-key` header (byHeader, as the peers key);
 * two layers are `layered({ ip, user })`, the user's id being that header, the ip layer's limit
 * never reached (ipLimit). `options` go to every adapter as they are (default options otherwise).
 * A variant with `lease` leases its layer (at most `limit` units at a time; none when the limit is 1);
 * one with `metrics` adds prometheusHooks() on a registry of its own; a variant's `options` are added
 * to the adapter's options.
 */
export const FLOODGATE = {
  adapters: ['express', 'fastify', 'hono', 'koa', 'nestjs'],
  variants: [
    { id: 'memory', store: 'memory', layers: 1 },
    { id: 'redis', store: 'redis', layers: 1 },
    { id: 'redis-2layers', store: 'redis', layers: 2 },
    // The one layer leased 100 units at a time (issue 12): one Redis call per 100 requests on a key.
    { id: 'redis-leased', store: 'redis', layers: 1, lease: { size: 100, ttl: '1s' } },
    // With @floodgate/prometheus' hooks (issue 11): what metrics cost per request.
    { id: 'redis-metrics', store: 'redis', layers: 1, metrics: true },
    // standardHeaders 'draft-11' (issue 24), against memory's draft-8: what the newer fields cost,
    // and with the partition key (an HMAC per layer key, cached).
    { id: 'memory-draft11', store: 'memory', layers: 1, options: { standardHeaders: 'draft-11' } },
    {
      id: 'memory-draft11-pk',
      store: 'memory',
      layers: 1,
      options: { standardHeaders: 'draft-11', partitionKey: { secret: 'bench partition key secret!' } },
    },
  ],
  header: 'x-api-key',
  ipLimit: 1e9,
  options: {},
  /** RedisStore's prefix, shared by the two instances of the exactness check. */
  redisPrefix: 'bench:',
};

/** The peers, set up as their READMEs show, keyed by the same header; `redis` marks a Redis store. */
const PEERS = {
  express: [
    { name: 'express-rate-limit-memory', redis: false },
    { name: 'express-rate-limit-redis', redis: true, note: 'rate-limit-redis' },
    { name: 'rate-limiter-flexible-memory', redis: false, note: 'RateLimiterMemory as Express middleware' },
    { name: 'rate-limiter-flexible-redis', redis: true, note: 'RateLimiterRedis as Express middleware' },
  ],
  fastify: [
    { name: 'fastify-rate-limit-memory', redis: false, note: '@fastify/rate-limit' },
    { name: 'fastify-rate-limit-redis', redis: true, note: '@fastify/rate-limit, `redis` option' },
  ],
  hono: [
    { name: 'hono-rate-limiter-memory', redis: false },
    { name: 'hono-rate-limiter-redis', redis: true, note: 'its RedisStore through a 4-line ioredis adapter' },
  ],
  koa: [
    { name: 'koa2-ratelimit-memory', redis: false, note: 'its MemoryStore (its Redis store needs the redis package)' },
    { name: 'koa-ratelimit-memory', redis: false, note: "driver 'memory'" },
    { name: 'koa-ratelimit-redis', redis: true, note: "driver 'redis' on the ioredis client" },
  ],
  // On @nestjs/platform-express; the guard as APP_GUARD, as both READMEs show.
  nestjs: [
    { name: 'nestjs-throttler-memory', redis: false, note: '@nestjs/throttler, its in-memory storage' },
    { name: 'nestjs-throttler-redis', redis: true, note: '@nestjs/throttler with @nest-lab/throttler-storage-redis' },
  ],
};

/** Every contender by name: framework, kind ('bare', 'floodgate', 'peer') and whether it uses Redis. */
export const CONTENDERS = new Map();
/** Per framework, in running order: its contenders, to be bracketed by `<framework>-bare`. */
export const GROUPS = [];

for (const framework of FLOODGATE.adapters) {
  const bare = { name: `${framework}-bare`, framework, kind: 'bare', redis: false };
  CONTENDERS.set(bare.name, bare);
  const members = [];
  for (const variant of FLOODGATE.variants) {
    const name = `floodgate-${framework}-${variant.id}`;
    members.push({ name, framework, kind: 'floodgate', redis: variant.store === 'redis', variant });
  }
  for (const peer of PEERS[framework]) members.push({ ...peer, framework, kind: 'peer' });
  for (const member of members) CONTENDERS.set(member.name, member);
  GROUPS.push({ framework, bare: bare.name, contenders: members.map((member) => member.name) });
}

/** The exactness check: two instances of each Floodgate Redis contender, one prefix, one limit. */
export const EXACTNESS = { limit: 37, windowMs: 3_600_000, keys: 20, requests: 2000, inflight: 64 };

function positiveNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a number of seconds > 0, got '${raw}'`);
  return value;
}
