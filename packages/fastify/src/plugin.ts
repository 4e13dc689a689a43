import {
  ABORTED,
  closeSignal,
  controlsOf,
  Denial,
  describeTrust,
  Gate,
  isThenable,
  routeOverride,
  nodeHeader,
  parseHttpOptions,
  statusReport,
  TurnQueue,
} from '@floodgate/core/http';
import fp from 'fastify-plugin';
import type { Decision, RateLimitInfo } from '@floodgate/core';
import type {
  GateResult,
  HttpConfig,
  HttpDriver,
  HttpLimitOptions,
  ProxyTrust,
  RateLimitControls,
  SharedCounters,
  StatusReport,
} from '@floodgate/core/http';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify';

/** Answers a denied request yourself; the rate-limit headers are already set. */
export type FloodgateHandler = (request: FastifyRequest, reply: FastifyReply, decision: Decision) => unknown;

/** Options of the plugin: the short form `{ limit, window }` or the full form with `limits`. */
export type FloodgateOptions = HttpLimitOptions<FastifyRequest, FastifyReply, FloodgateHandler>;

/** A route's `config.rateLimit`: overrides the plugin's options (own layers get their own prefix). */
export type FloodgateRouteOptions = Partial<FloodgateOptions>;

/** `fastify.floodgate`: the plugin's limiter and its controls for a request. */
export interface FloodgateControls extends RateLimitControls<FastifyRequest> {
  /**
   * A route handler answering the caller's standing under every rule, as GitHub's `/rate_limit`
   * does: `{ resources: { <rule>: { limit, remaining, used, reset } } }` (reset in epoch seconds),
   * with the usual headers. A route it handles is never limited by the plugin.
   */
  status(request: FastifyRequest, reply: FastifyReply): Promise<StatusReport | FastifyReply>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The plugin's limiter and its controls (peek, reset, block, unblock, status). */
    floodgate: FloodgateControls;
  }
  interface FastifyRequest {
    /** The rate-limit decision for this request, with `refund(n)`; undefined when skipped. */
    rateLimit: RateLimitInfo | undefined;
  }
  interface FastifyContextConfig {
    rateLimit?: FloodgateRouteOptions | false;
  }
}

/** What the app's `trustProxy` means for the warnings, as read once at registration. */
interface TrustSetting {
  trust: ProxyTrust | undefined;
  /** A hop count, which Fastify 5 ignores (it fails closed) and Fastify 4 honours. */
  hopCount: boolean;
}

/**
 * The trust in effect for one request. A hop count Fastify ignored leaves `request.ips` with the
 * socket's peer alone although X-Forwarded-For was sent: every client behind the proxy then shares
 * its address, as with no trust at all, so it is reported as 'none'.
 */
function effectiveTrust(setting: TrustSetting, request: FastifyRequest): ProxyTrust {
  if (setting.trust === undefined) return request.ips === undefined ? 'none' : 'some';
  if (setting.hopCount && request.headers['x-forwarded-for'] !== undefined && (request.ips?.length ?? 0) <= 1) {
    return 'none';
  }
  return setting.trust;
}

function fastifyDriver(setting: TrustSetting): HttpDriver<FastifyRequest, FastifyReply> {
  return {
    header: (request, name) => nodeHeader(request.headers, name),
    ip: (request) => request.ip,
    setHeader(reply, name, value) {
      reply.header(name, value);
    },
    trust: (request) => effectiveTrust(setting, request),
    trustHint: setting.hopCount
      ? 'the Fastify trustProxy option to the proxy addresses (Fastify 5 ignores a hop count)'
      : 'the Fastify trustProxy option',
    abortSignal: (_request, reply) => closeSignal(reply.raw),
  };
}

interface GateHook {
  hook: onRequestHookHandler;
  engine: HttpConfig<FastifyRequest>['engine'];
  gate: Gate<FastifyRequest, FastifyReply>;
  /** Answers a denial outside the hook (the status route's refusal). */
  deny(denial: Denial, request: FastifyRequest, reply: FastifyReply): void;
}

function gateHook(
  options: unknown,
  where: string,
  driver: HttpDriver<FastifyRequest, FastifyReply>,
  counters?: SharedCounters<FastifyRequest>,
): GateHook {
  const config = parseHttpOptions<FastifyRequest, FastifyReply, FloodgateHandler>(where, options, [], counters);
  const gate = new Gate(config, driver);

  const apply = (result: GateResult, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (result === undefined) return done();
    if (result === ABORTED) {
      // The client is gone: end the exchange here so nothing runs for it and the connection is freed.
      reply.hijack();
      reply.raw.end();
      return;
    }
    if (result instanceof Denial) return deny(result, request, reply, done);
    request.rateLimit = result;
    const raw = reply.raw;
    if (gate.needsFinish(result)) {
      if (raw.closed) return gate.finish(result, request, reply);
      gate.finishWith(raw, result, request, reply);
    }
    done();
  };

  // Replying from a callback hook: send, and do not call done (Fastify then skips the handler).
  const deny = (denial: Denial, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (denial.body !== undefined) {
      reply.code(denial.status).type(denial.body.contentType).send(denial.body.text);
      return;
    }
    try {
      const answered = config.handler?.(request, reply, denial.decision);
      if (isThenable(answered)) Promise.resolve(answered).catch(done);
    } catch (error) {
      done(error as Error);
    }
  };

  const decide = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    try {
      const result = gate.check(request, reply, request.rateLimit);
      if (isThenable(result)) result.then((settled) => apply(settled, request, reply, done), done);
      else apply(result, request, reply, done);
    } catch (error) {
      done(error as Error);
    }
  };
  const turn = new TurnQueue(decide);

  return {
    hook: function floodgateOnRequest(request, reply, done) {
      if (turn.batching) turn.push(request, reply, done);
      else decide(request, reply, done);
    },
    engine: config.engine,
    gate,
    deny: (denial, request, reply) =>
      deny(denial, request, reply, (error?: Error) => {
        if (error !== undefined) reply.send(error);
      }),
  };
}

async function plugin(fastify: FastifyInstance, options: FloodgateOptions): Promise<void> {
  const driver = fastifyDriver(trustSetting(fastify));
  const app = gateHook(options, 'floodgate', driver);
  // One gate per route options object: the HEAD route Fastify adds shares its GET route's counters.
  const routeHooks = new WeakMap<object, onRequestHookHandler>();
  const controls: FloodgateControls = {
    ...controlsOf(app.gate),
    async status(request, reply) {
      const report = await statusReport(app.gate, request, reply, request.rateLimit);
      if (report instanceof Denial) {
        app.deny(report, request, reply);
        return reply;
      }
      reply.header('cache-control', 'no-store');
      return report;
    },
  };
  fastify.decorate('floodgate', controls);
  fastify.decorateRequest('rateLimit', undefined);
  // Closing the app gives leased units back to the store.
  fastify.addHook('onClose', () => app.engine.close());
  fastify.addHook('onRoute', (route) => {
    const own = route.config?.rateLimit;
    if (own === false || route.handler === controls.status) return;
    const where = `config.rateLimit of ${route.method} ${route.url}`;
    let hook = own === undefined ? app.hook : routeHooks.get(own);
    if (hook === undefined) {
      const override = routeOverride(where, options as Record<string, unknown>, own, String(route.url));
      const counters =
        override.counters === 'own' ? undefined : { engine: app.engine, reuse: override.counters === 'app' };
      hook = gateHook(override.options, where, driver, counters).hook;
      if (typeof own === 'object' && own !== null) routeHooks.set(own, hook);
    }
    const existing = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [hook, ...existing] as NonNullable<typeof route.onRequest>;
  });
}

/**
 * Fastify keeps its construction options under a private symbol (the same in v4 and v5); read
 * `trustProxy` from there so `true` can be told apart from a hop count. `trust` is undefined if not found.
 */
function trustSetting(fastify: FastifyInstance): TrustSetting {
  for (let scope: object | null = fastify; scope !== null; scope = Object.getPrototypeOf(scope)) {
    const key = Object.getOwnPropertySymbols(scope).find((symbol) => symbol.description === 'fastify.options');
    if (key === undefined) continue;
    const setting = (scope as Record<symbol, { trustProxy?: unknown }>)[key]?.trustProxy;
    return { trust: describeTrust(setting), hopCount: typeof setting === 'number' && setting > 0 };
  }
  return { trust: undefined, hopCount: false };
}

/**
 * Fastify plugin (Fastify 4 and 5). Register it before the routes it should limit; a route
 * overrides it with `config: { rateLimit: { ... } }` or opts out with `config: { rateLimit: false }`.
 *
 * @example
 * await app.register(floodgate, { limit: 100, window: '1m' });
 */
export const floodgate = fp(plugin, { fastify: '4.x || 5.x', name: '@floodgate/fastify' });
