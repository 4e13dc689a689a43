// The user API of @floodgate/core (algorithms, key functions, layered, stores), and Nest's parts.
export * from '@floodgate/core';
export { byUser, layered } from './typed';
export { FloodgateModule } from './module';
export { FloodgateGuard } from './guard';
export { FloodgateService } from './service';
export { RateLimit, SkipRateLimit } from './decorators';
export { RateLimitException } from './exception';
export { statusController } from './status';
export { FLOODGATE_OPTIONS } from './tokens';
export type {
  FloodgateLimitOptions,
  FloodgateModuleAsyncOptions,
  FloodgateModuleOptions,
  FloodgateModuleSetup,
  NestRequest,
  RateLimitOptions,
} from './options';
export type { StatusReport, StatusResource } from '@floodgate/core/http';
