import { byUser as coreByUser, layered as coreLayered } from '@floodgate/core';
import type { KeyFunction, LayeredOptions, LimitRule, UserId } from '@floodgate/core';
import type { Context } from 'hono';

/** layered(), whose user layer's `id` receives Hono's `c`. */
export const layered: (options: LayeredOptions<Context>) => LimitRule<Context>[] = coreLayered;

/** byUser(), whose function receives Hono's `c`. */
export const byUser: (fn: (c: Context) => UserId | Promise<UserId>) => KeyFunction<Context> = coreByUser;
