import { byUser as coreByUser, layered as coreLayered } from '@floodgate/core';
import type { KeyFunction, LayeredOptions, LimitRule, UserId } from '@floodgate/core';
import type { NestRequest } from './options';

/** layered(), whose user layer's `id` receives the platform's request (`req.user` set by your auth guard or middleware). */
export const layered: (options: LayeredOptions<NestRequest>) => LimitRule<NestRequest>[] = coreLayered;

/** byUser(), whose function receives the platform's request. */
export const byUser: (fn: (req: NestRequest) => UserId | Promise<UserId>) => KeyFunction<NestRequest> = coreByUser;
