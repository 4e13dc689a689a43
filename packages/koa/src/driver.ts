import { closeSignal, nodeHeader } from '@floodgate/core/http';
import type { HttpDriver, ProxyTrust } from '@floodgate/core/http';
import type { Context } from 'koa';

/**
 * How far the app believes its proxies, as Koa reads them: `app.proxy` off, nothing is believed;
 * on, Koa takes the first address of `proxyIpHeader` (any client can write it) unless
 * `maxIpsCount` keeps only the hops the app's own proxies appended.
 */
function trust(ctx: Context): ProxyTrust {
  const app = ctx.app;
  if (app.proxy !== true) return 'none';
  return app.maxIpsCount > 0 ? 'some' : 'all';
}

/**
 * Koa's request, read as Koa does: the client address is `ctx.ip`, which follows `app.proxy`,
 * `app.proxyIpHeader` and `app.maxIpsCount` (and is the socket's peer while `app.proxy` is off).
 */
export const koaDriver: HttpDriver<Context, Context> = {
  header: (ctx, name) => nodeHeader(ctx.req.headers, name),
  // Koa answers '' when it knows no address (a closed socket): that is no address.
  ip: (ctx) => ctx.ip || undefined,
  setHeader(ctx, name, value) {
    const res = ctx.res;
    if (!res.headersSent) res.setHeader(name, value);
  },
  trust,
  trustHint: 'app.proxy',
  abortSignal: (ctx) => closeSignal(ctx.res),
};
