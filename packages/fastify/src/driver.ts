// How the plugin reads a Fastify request and writes a reply (its HttpDriver), and what the app's
// trustProxy setting means for the warnings: all of it Fastify's own.
import { closeSignal, describeTrust, nodeHeader } from '@floodgate/core/http';
import type { HttpDriver, ProxyTrust } from '@floodgate/core/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** What the app's `trustProxy` means for the warnings, as read once at registration. */
export interface TrustSetting {
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

export function fastifyDriver(setting: TrustSetting): HttpDriver<FastifyRequest, FastifyReply> {
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

/**
 * Fastify keeps its construction options under a private symbol (the same in v4 and v5); read
 * `trustProxy` from there so `true` can be told apart from a hop count. `trust` is undefined if not found.
 */
export function trustSetting(fastify: FastifyInstance): TrustSetting {
  for (let scope: object | null = fastify; scope !== null; scope = Object.getPrototypeOf(scope)) {
    const key = Object.getOwnPropertySymbols(scope).find((symbol) => symbol.description === 'fastify.options');
    if (key === undefined) continue;
    const setting = (scope as Record<symbol, { trustProxy?: unknown }>)[key]?.trustProxy;
    return { trust: describeTrust(setting), hopCount: typeof setting === 'number' && setting > 0 };
  }
  return { trust: undefined, hopCount: false };
}
