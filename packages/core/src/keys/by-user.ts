import { show } from '../base/errors';
import { functionOption } from '../base/validate';
import { isThenable } from '../base/thenable';
import { perClient } from './scope';
import type { KeyFunction } from './context';

/** What a byUser function may return: null, undefined and `''` mean "anonymous". */
export type UserId = string | number | null | undefined;

/**
 * Keys a layer by user. `fn` receives the framework's request (Express `req`, Fastify `request`,
 * Hono `c`) and returns the user's id: a string, or a finite number (turned into a string).
 * For anonymous requests (null, undefined or `''`) the layer does not apply.
 *
 * @example byUser((req: { user?: { id: string } }) => req.user?.id)
 */
export function byUser<Req>(fn: (req: Req) => UserId | Promise<UserId>): KeyFunction<Req> {
  const userId = functionOption<(req: Req) => UserId | Promise<UserId>>('byUser.fn', fn);
  const byUserKey: KeyFunction<Req> = (ctx) => {
    const id = userId(ctx.req);
    return isThenable(id) ? Promise.resolve(id).then(userKey) : userKey(id);
  };
  return perClient(byUserKey);
}

function userKey(id: unknown): string | undefined {
  if (id === undefined || id === null || id === '') return undefined;
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  throw new TypeError(`byUser: the function must return a string, a finite number, null or undefined, got ${show(id)}`);
}
