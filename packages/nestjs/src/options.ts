import type { HttpLimitOptions } from '@floodgate/core/http';
import type { ModuleMetadata } from '@nestjs/common';

/**
 * The request as a user function receives it: Express' `req` on @nestjs/platform-express,
 * Fastify's `request` on @nestjs/platform-fastify (or what `getRequestResponse` returns).
 */
// biome-ignore lint/suspicious/noExplicitAny: the request type is the platform's, read by the user's own functions.
export type NestRequest = any;

/** The limiter options every adapter takes (`limit`/`window` or `limits`, `store`, `failMode`, headers...). */
export type FloodgateLimitOptions = Omit<HttpLimitOptions<NestRequest, NestRequest, never>, 'handler'>;

export interface FloodgateModuleOptions extends FloodgateLimitOptions {
  /**
   * Count the module's rules per route, as @nestjs/throttler does (each handler its own counters),
   * instead of once for the whole app. Default false: a client has one quota across the routes the
   * guard covers; a route with `@RateLimit({ limit, window })` (or `limits`) always counts on its own.
   */
  perRoute?: boolean;
}

/** forRoot's second argument: what must be known before the options are (Nest registers controllers statically). */
export interface FloodgateModuleSetup {
  /** Makes the module's providers (FloodgateService) available everywhere without importing it. Default false. */
  isGlobal?: boolean;
  /**
   * Serves the status route, GitHub's `/rate_limit`, at this path (e.g. `'rate_limit'`) with the
   * ready FloodgateStatusController. Default: not served.
   */
  statusPath?: string;
}

export interface FloodgateModuleAsyncOptions extends FloodgateModuleSetup, Pick<ModuleMetadata, 'imports'> {
  /** Makes the options, e.g. from ConfigService; may be async. */
  // biome-ignore lint/suspicious/noExplicitAny: Nest hands the factory whatever `inject` names.
  useFactory: (...args: any[]) => FloodgateModuleOptions | Promise<FloodgateModuleOptions>;
  // biome-ignore lint/suspicious/noExplicitAny: injection tokens are any provider token.
  inject?: any[];
}

/** `@RateLimit(...)`: for a class or a handler, over the module's options. */
export type RateLimitOptions = Partial<FloodgateLimitOptions>;
