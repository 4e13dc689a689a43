// One contender of the HTTP benchmark in its own process: `node server.mjs <contender>`.
// Environment: BENCH_LIMIT and BENCH_WINDOW_MS (the per-key limit), BENCH_REDIS_PORT (Redis contenders),
// BENCH_FAIL_MODE (Floodgate's failMode, for the exactness check).
// Listens on a free loopback port and prints `listening <port>` once it accepts requests.
import { Redis } from 'ioredis';
import { CONTENDERS, FLOODGATE, REDIS_CLIENT } from './config.mjs';

const name = process.argv[2];
const contender = CONTENDERS.get(name);
if (contender === undefined) {
  console.error(`unknown contender '${name}'; known: ${[...CONTENDERS.keys()].join(', ')}`);
  process.exit(2);
}
const limit = Number(process.env.BENCH_LIMIT);
const windowMs = Number(process.env.BENCH_WINDOW_MS);
if (!(limit >= 1) || !(windowMs >= 1)) {
  console.error('BENCH_LIMIT and BENCH_WINDOW_MS must be set');
  process.exit(2);
}

/** One ioredis client, connected before anything uses it (there is no offline queue). */
async function redisClient() {
  const port = Number(process.env.BENCH_REDIS_PORT);
  if (!(port > 0)) throw new Error(`${name} needs BENCH_REDIS_PORT`);
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, ...REDIS_CLIENT });
  await client.connect();
  return client;
}

const key = {
  express: (req) => req.headers[FLOODGATE.header],
  fastify: (request) => request.headers[FLOODGATE.header],
  hono: (c) => c.req.header(FLOODGATE.header),
  koa: (ctx) => ctx.get(FLOODGATE.header),
  nestjs: (req) => req.headers[FLOODGATE.header],
};

/** The options of a Floodgate contender: its layers and store, from FLOODGATE in config.mjs. */
async function floodgateOptions(framework, variant) {
  const { byHeader, fixedWindow, layered } = await import('@floodgate/core');
  const window = windowMs;
  const lease =
    variant.lease === undefined || limit < 2
      ? {}
      : { lease: { ...variant.lease, size: Math.min(variant.lease.size, limit) } };
  const limits =
    variant.layers === 1
      ? [{ name: 'apiKey', key: byHeader(FLOODGATE.header), algorithm: fixedWindow({ limit, window }), ...lease }]
      : layered({
          ip: fixedWindow({ limit: FLOODGATE.ipLimit, window }),
          user: { id: key[framework], algorithm: fixedWindow({ limit, window }) },
        });
  const options = { ...FLOODGATE.options, ...variant.options, limits };
  // The exactness check asks for failMode 'closed': a decision the store could not make within the
  // deadline (a stalled machine) is then a 503, never a local admission counted as over the limit.
  if (process.env.BENCH_FAIL_MODE) options.failMode = process.env.BENCH_FAIL_MODE;
  if (variant.metrics) {
    const [{ prometheusHooks }, { Registry }] = await Promise.all([
      import('@floodgate/prometheus'),
      import('prom-client'),
    ]);
    Object.assign(options, prometheusHooks({ registry: new Registry() }));
  }
  if (variant.store === 'redis') {
    const { RedisStore } = await import('@floodgate/redis');
    options.store = new RedisStore({ client: await redisClient(), prefix: FLOODGATE.redisPrefix });
  }
  return options;
}

// Each returns what its framework mounts: an Express or Hono middleware, or a Fastify plugin
// registration `(app) => Promise`. Bare contenders mount nothing.
const express = {
  async 'floodgate-express'(variant) {
    const { rateLimit } = await import('@floodgate/express');
    return rateLimit(await floodgateOptions('express', variant));
  },
  async 'express-rate-limit-memory'() {
    const { rateLimit } = await import('express-rate-limit');
    return rateLimit({
      windowMs,
      limit,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      keyGenerator: key.express,
    });
  },
  async 'express-rate-limit-redis'() {
    const { rateLimit } = await import('express-rate-limit');
    const { RedisStore } = await import('rate-limit-redis');
    const client = await redisClient();
    return rateLimit({
      windowMs,
      limit,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      keyGenerator: key.express,
      store: new RedisStore({ sendCommand: (command, ...args) => client.call(command, ...args) }),
    });
  },
  async 'rate-limiter-flexible-memory'() {
    const { RateLimiterMemory } = await import('rate-limiter-flexible');
    return flexibleMiddleware(new RateLimiterMemory({ points: limit, duration: windowMs / 1000 }));
  },
  async 'rate-limiter-flexible-redis'() {
    const { RateLimiterRedis } = await import('rate-limiter-flexible');
    const storeClient = await redisClient();
    return flexibleMiddleware(
      new RateLimiterRedis({ storeClient, keyPrefix: 'middleware', points: limit, duration: windowMs / 1000 }),
    );
  },
};

/** rate-limiter-flexible's Express middleware, as its README shows it (keyed by the header, not req.ip). */
function flexibleMiddleware(rateLimiter) {
  return (req, res, next) => {
    rateLimiter
      .consume(key.express(req))
      .then(() => next())
      .catch(() => res.status(429).send('Too Many Requests'));
  };
}

const fastify = {
  async 'floodgate-fastify'(variant) {
    const { floodgate } = await import('@floodgate/fastify');
    const options = await floodgateOptions('fastify', variant);
    return (app) => app.register(floodgate, options);
  },
  async 'fastify-rate-limit-memory'() {
    const { default: rateLimit } = await import('@fastify/rate-limit');
    return (app) => app.register(rateLimit, { max: limit, timeWindow: windowMs, keyGenerator: key.fastify });
  },
  async 'fastify-rate-limit-redis'() {
    const { default: rateLimit } = await import('@fastify/rate-limit');
    const redis = await redisClient();
    return (app) => app.register(rateLimit, { max: limit, timeWindow: windowMs, keyGenerator: key.fastify, redis });
  },
};

const hono = {
  async 'floodgate-hono'(variant) {
    const { rateLimiter } = await import('@floodgate/hono');
    return rateLimiter(await floodgateOptions('hono', variant));
  },
  async 'hono-rate-limiter-memory'() {
    const { rateLimiter } = await import('hono-rate-limiter');
    return rateLimiter({ windowMs, limit, standardHeaders: 'draft-6', keyGenerator: honoKey });
  },
  async 'hono-rate-limiter-redis'() {
    const { rateLimiter, RedisStore } = await import('hono-rate-limiter');
    const redis = await redisClient();
    // hono-rate-limiter's RedisStore (and @hono-rate-limiter/redis) expect an @upstash/redis or
    // @vercel/kv client; ioredis spells the same four commands differently.
    const client = {
      scriptLoad: (script) => redis.script('LOAD', script),
      evalsha: (sha, keys, args) => redis.evalsha(sha, keys.length, ...keys, ...args),
      decr: (k) => redis.decr(k),
      del: (k) => redis.del(k),
    };
    return rateLimiter({
      windowMs,
      limit,
      standardHeaders: 'draft-6',
      keyGenerator: honoKey,
      store: new RedisStore({ client }),
    });
  },
};

function honoKey(c) {
  return key.hono(c) ?? '';
}

const koa = {
  async 'floodgate-koa'(variant) {
    const { rateLimit } = await import('@floodgate/koa');
    return rateLimit(await floodgateOptions('koa', variant));
  },
  async 'koa2-ratelimit-memory'() {
    const { RateLimit } = await import('koa2-ratelimit');
    return RateLimit.middleware({ interval: windowMs, max: limit, keyGenerator: async (ctx) => key.koa(ctx) });
  },
  async 'koa-ratelimit-memory'() {
    const { default: ratelimit } = await import('koa-ratelimit');
    return ratelimit({ driver: 'memory', db: new Map(), duration: windowMs, max: limit, id: key.koa });
  },
  async 'koa-ratelimit-redis'() {
    const { default: ratelimit } = await import('koa-ratelimit');
    return ratelimit({ driver: 'redis', db: await redisClient(), duration: windowMs, max: limit, id: key.koa });
  },
};

// Nest's decorators applied as the functions they are (this file is plain JavaScript). Each
// returns the module metadata the app module adds: imports and providers (the APP_GUARD).
const nestjs = {
  async 'floodgate-nestjs'(variant) {
    const [{ FloodgateModule, FloodgateGuard }, { APP_GUARD }] = await Promise.all([
      import('@floodgate/nestjs'),
      import('@nestjs/core'),
    ]);
    const options = await floodgateOptions('nestjs', variant);
    return {
      imports: [FloodgateModule.forRoot(options)],
      providers: [{ provide: APP_GUARD, useClass: FloodgateGuard }],
    };
  },
  async 'nestjs-throttler-memory'() {
    return throttlerModule(undefined);
  },
  async 'nestjs-throttler-redis'() {
    const { ThrottlerStorageRedisService } = await import('@nest-lab/throttler-storage-redis');
    return throttlerModule(new ThrottlerStorageRedisService(await redisClient()));
  },
};

/** @nestjs/throttler as its README sets it up, keyed by the same header (`getTracker`). */
async function throttlerModule(storage) {
  const [{ ThrottlerModule, ThrottlerGuard }, { APP_GUARD }] = await Promise.all([
    import('@nestjs/throttler'),
    import('@nestjs/core'),
  ]);
  const throttler = ThrottlerModule.forRoot({
    throttlers: [{ ttl: windowMs, limit }],
    getTracker: (req) => key.nestjs(req),
    ...(storage === undefined ? {} : { storage }),
  });
  return { imports: [throttler], providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }] };
}

const factories = { express, fastify, hono, koa, nestjs };

async function mounted() {
  if (contender.kind === 'bare') return undefined;
  const table = factories[contender.framework];
  if (contender.kind === 'floodgate') return table[`floodgate-${contender.framework}`](contender.variant);
  return table[name]();
}

/** Starts the framework's app on 127.0.0.1:0 with `mount` in front of `GET /` (answers 'ok'). */
const listen = {
  async express(mount) {
    const { default: express } = await import('express');
    const app = express();
    if (mount) app.use(mount);
    app.get('/', (_req, res) => {
      res.send('ok');
    });
    return new Promise((resolve, reject) => {
      const server = app.listen(0, '127.0.0.1', (error) => (error ? reject(error) : resolve(server.address().port)));
    });
  },
  async fastify(mount) {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    if (mount) await mount(app);
    app.get('/', async () => 'ok');
    await app.listen({ port: 0, host: '127.0.0.1' });
    return app.server.address().port;
  },
  async hono(mount) {
    const { Hono } = await import('hono');
    const { serve } = await import('@hono/node-server');
    const app = new Hono();
    if (mount) app.use(mount);
    app.get('/', (c) => c.text('ok'));
    return new Promise((resolve) => {
      serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
    });
  },
  async koa(mount) {
    const { default: Koa } = await import('koa');
    const app = new Koa();
    if (mount) app.use(mount);
    app.use((ctx) => {
      ctx.body = 'ok';
    });
    return new Promise((resolve, reject) => {
      const server = app.listen(0, '127.0.0.1', (error) => (error ? reject(error) : resolve(server.address().port)));
    });
  },
  /** Nest on @nestjs/platform-express: one controller answering `GET /`, `mount` the module metadata to add. */
  async nestjs(mount) {
    await import('reflect-metadata');
    const [{ Controller, Get, Module }, { NestFactory }, { ExpressAdapter }] = await Promise.all([
      import('@nestjs/common'),
      import('@nestjs/core'),
      import('@nestjs/platform-express'),
    ]);
    class AppController {
      get() {
        return 'ok';
      }
    }
    Get()(AppController.prototype, 'get', Object.getOwnPropertyDescriptor(AppController.prototype, 'get'));
    Controller()(AppController);
    class AppModule {}
    Module({ imports: mount?.imports ?? [], controllers: [AppController], providers: mount?.providers ?? [] })(
      AppModule,
    );
    const app = await NestFactory.create(AppModule, new ExpressAdapter(), { logger: false });
    await app.listen(0, '127.0.0.1');
    return app.getHttpServer().address().port;
  },
};

const port = await listen[contender.framework](await mounted());
process.stdout.write(`listening ${port}\n`);
process.on('SIGTERM', () => process.exit(0));
