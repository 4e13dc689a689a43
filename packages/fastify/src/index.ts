// The user API of @floodgate/core, with layered and byUser typed for Fastify's request.
export * from '@floodgate/core';
export { byUser, layered } from './typed';
export { floodgate, floodgate as default } from './plugin';
export type { FloodgateControls, FloodgateHandler, FloodgateOptions, FloodgateRouteOptions } from './types';
