import { byUser as coreByUser, layered as coreLayered } from '@floodgate/core';
import type { KeyFunction, LayeredOptions, LimitRule, UserId } from '@floodgate/core';
import type { Request } from 'express';

/** layered(), whose user layer's `id` receives Express' `req`. */
export const layered: (options: LayeredOptions<Request>) => LimitRule<Request>[] = coreLayered;

/** byUser(), whose function receives Express' `req`. */
export const byUser: (fn: (req: Request) => UserId | Promise<UserId>) => KeyFunction<Request> = coreByUser;
