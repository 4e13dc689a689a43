export { floodgate, floodgate as default } from './plugin';
export type { FloodgateHandler, FloodgateOptions, FloodgateRouteOptions } from './plugin';
export type { Decision, RateLimitInfo, FloodgateWarning } from '@floodgate/core';
