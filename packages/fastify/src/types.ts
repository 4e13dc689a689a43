import type { Decision } from '@floodgate/core';
import type { HttpLimitOptions, RateLimitControls, StatusReport } from '@floodgate/core/http';
import type { FastifyReply, FastifyRequest } from 'fastify';

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
