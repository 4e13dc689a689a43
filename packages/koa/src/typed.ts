import { byUser as coreByUser, layered as coreLayered } from '@floodgate/core';
import type { KeyFunction, LayeredOptions, LimitRule, UserId } from '@floodgate/core';
import type { Context } from 'koa';

/** layered(), whose user layer's `id` receives Koa's `ctx`. */
export const layered: (options: LayeredOptions<Context>) => LimitRule<Context>[] = coreLayered;

/** byUser(), whose function receives Koa's `ctx`. */
export const byUser: (fn: (ctx: Context) => UserId | Promise<UserId>) => KeyFunction<Context> = coreByUser;
