import { byUser as coreByUser, layered as coreLayered } from '@floodgate/core';
import type { KeyFunction, LayeredOptions, LimitRule, UserId } from '@floodgate/core';
import type { FastifyRequest } from 'fastify';

/** layered(), whose user layer's `id` receives Fastify's `request`. */
export const layered: (options: LayeredOptions<FastifyRequest>) => LimitRule<FastifyRequest>[] = coreLayered;

/** byUser(), whose function receives Fastify's `request`. */
export const byUser: (fn: (request: FastifyRequest) => UserId | Promise<UserId>) => KeyFunction<FastifyRequest> =
  coreByUser;
