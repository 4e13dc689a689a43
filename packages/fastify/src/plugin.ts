import { controlsOf, Denial, routeOverride, statusReport } from '@floodgate/core/http';
import fp from 'fastify-plugin';
import type { RateLimitInfo } from '@floodgate/core';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { fastifyDriver, trustSetting } from './driver';
import { gateHook } from './gate-hook';
import type { FloodgateControls, FloodgateOptions, FloodgateRouteOptions } from './types';

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
 * Fastify plugin (Fastify 4 and 5). Register it before the routes it should limit; a route
 * overrides it with `config: { rateLimit: { ... } }` or opts out with `config: { rateLimit: false }`.
 *
 * @example
 * await app.register(floodgate, { limit: 100, window: '1m' });
 */
export const floodgate = fp(plugin, { fastify: '4.x || 5.x', name: '@floodgate/fastify' });
